// The allowlist tree in @openzeppelin/merkle-tree's StandardMerkleTree layout ("standard-v1",
// sorted leaves, sorted-pair hashing), built on viem. The library itself runs once wrangler
// bundles it, but its CommonJS dependency chain (@metamask/abi-utils → @metamask/superstruct)
// does not load in @cloudflare/vitest-pool-workers, so the service could not be tested in workerd.
// Dumps are interchangeable with the library's: StandardMerkleTree.load() accepts ours.
import { concat, encodeAbiParameters, keccak256, type Hex } from "viem";

/** [address (lower-case), maxClaimable, price], integers as decimal strings. */
export type AllowlistLeaf = [address: string, maxClaimable: string, price: string];

export const ALLOWLIST_LEAF_ENCODING = ["address", "uint256", "uint256"];
const LEAF_PARAMETERS = [{ type: "address" }, { type: "uint256" }, { type: "uint256" }] as const;

export interface AllowlistTreeDump {
  format: "standard-v1";
  leafEncoding: string[];
  /** Root at 0; the children of node i are 2i+1 and 2i+2; leaves fill the end in reverse sorted order. */
  tree: Hex[];
  /** In input order, each pointing at its leaf in `tree`. */
  values: { value: AllowlistLeaf; treeIndex: number }[];
}

/** DropERC721's leaf: keccak256(bytes.concat(keccak256(abi.encode(to, allowedQuantity, allowedPrice)))). */
export function allowlistLeafHash([address, maxClaimable, price]: AllowlistLeaf): Hex {
  return keccak256(keccak256(encodeAbiParameters(LEAF_PARAMETERS, [address as Hex, BigInt(maxClaimable), BigInt(price)])));
}

// OpenZeppelin's MerkleProof hashes each pair in ascending order; equal-length lower-case hex
// compares as the bytes do.
const hashPair = (a: Hex, b: Hex): Hex => keccak256(a < b ? concat([a, b]) : concat([b, a]));

export function buildAllowlistTree(values: AllowlistLeaf[]): AllowlistTreeDump {
  if (values.length === 0) throw new Error("an allowlist tree needs at least one leaf");
  const sorted = values
    .map((value, valueIndex) => ({ valueIndex, hash: allowlistLeafHash(value) }))
    .sort((x, y) => (x.hash < y.hash ? -1 : x.hash > y.hash ? 1 : 0));
  const tree = new Array<Hex>(2 * sorted.length - 1);
  const treeIndexOf = new Array<number>(values.length);
  sorted.forEach(({ valueIndex, hash }, position) => {
    const treeIndex = tree.length - 1 - position;
    tree[treeIndex] = hash;
    treeIndexOf[valueIndex] = treeIndex;
  });
  for (let i = tree.length - 1 - sorted.length; i >= 0; i--) tree[i] = hashPair(tree[2 * i + 1]!, tree[2 * i + 2]!);
  return {
    format: "standard-v1",
    leafEncoding: ALLOWLIST_LEAF_ENCODING,
    tree,
    values: values.map((value, valueIndex) => ({ value, treeIndex: treeIndexOf[valueIndex]! })),
  };
}

/** Sibling hashes from the leaf at `treeIndex` up to the root. */
export function allowlistProof(dump: AllowlistTreeDump, treeIndex: number): Hex[] {
  const proof: Hex[] = [];
  for (let i = treeIndex; i > 0; i = Math.floor((i - 1) / 2)) proof.push(dump.tree[i % 2 === 1 ? i + 1 : i - 1]!);
  return proof;
}

/** What the contract's MerkleProof.verify computes. */
export function verifyAllowlistProof(root: Hex, leaf: AllowlistLeaf, proof: Hex[]): boolean {
  return proof.reduce(hashPair, allowlistLeafHash(leaf)) === root.toLowerCase();
}
