// Seaport's bulk-order signatures (OpenSea's "list many items with one signature"): the wallet
// signs a BulkOrder whose tree holds up to 2^24 orders; each order carries the ECDSA signature,
// its three-byte index in the tree and the sibling hashes up to the root. Checked the way
// Seaport 1.6 checks them (SignatureVerification and Verifiers._computeBulkOrderProof).
import { concat, hashDomain, keccak256, stringToHex, type Hex } from "viem";
import { SEAPORT_EIP712_TYPES } from "./seaport-types";

const MAX_TREE_HEIGHT = 24;
const KEY_BYTES = 3;

/** `Name(type name,...)` for one of Seaport's struct types. */
const encodeStruct = (name: keyof typeof SEAPORT_EIP712_TYPES) => `${name}(${SEAPORT_EIP712_TYPES[name].map((field) => `${field.type} ${field.name}`).join(",")})`;
// Referenced struct types follow the primary one in alphabetical order (EIP-712 encodeType).
const REFERENCED_TYPES = encodeStruct("ConsiderationItem") + encodeStruct("OfferItem") + encodeStruct("OrderComponents");

const typeHashes = new Map<number, Hex>();
function bulkOrderTypeHash(height: number): Hex {
  let hash = typeHashes.get(height);
  if (!hash) {
    hash = keccak256(stringToHex(`BulkOrder(OrderComponents${"[2]".repeat(height)} tree)${REFERENCED_TYPES}`));
    typeHashes.set(height, hash);
  }
  return hash;
}

export interface BulkSignature {
  /** The EIP-712 digest the wallet signed: the BulkOrder of the tree this order is a leaf of. */
  digest: Hex;
  /** The 64- or 65-byte ECDSA signature at the front of the bytes. */
  ecdsa: Hex;
}

/**
 * The bulk-order reading of `signature` for the order `orderHash`, or null when its length is not
 * a bulk signature's (64 or 65 bytes, a 3-byte key and 1 to 24 proof hashes). Seaport reads any
 * signature of such a length this way.
 */
export function bulkOrderSignature(domain: { name: string; version: string; chainId: number; verifyingContract: Hex }, orderHash: string, signature: string): BulkSignature | null {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(signature)) return null;
  const bytes = (signature.length - 2) / 2;
  const ecdsaBytes = 65 - (bytes % 2);
  const proofBytes = bytes - ecdsaBytes - KEY_BYTES;
  const height = proofBytes / 32;
  if (!Number.isInteger(height) || height < 1 || height > MAX_TREE_HEIGHT) return null;
  const hex = signature.slice(2).toLowerCase();
  const ecdsa = `0x${hex.slice(0, ecdsaBytes * 2)}` as Hex;
  const key = Number.parseInt(hex.slice(ecdsaBytes * 2, (ecdsaBytes + KEY_BYTES) * 2), 16);
  const proofStart = (ecdsaBytes + KEY_BYTES) * 2;
  let node = orderHash.toLowerCase() as Hex;
  for (let level = 0; level < height; level++) {
    const sibling = `0x${hex.slice(proofStart + level * 64, proofStart + (level + 1) * 64)}` as Hex;
    // The key's bit for this level says which side the path is on.
    node = keccak256((key >> level) & 1 ? concat([sibling, node]) : concat([node, sibling]));
  }
  const bulkOrderHash = keccak256(concat([bulkOrderTypeHash(height), node]));
  const domainSeparator = hashDomain({
    domain: { ...domain, chainId: BigInt(domain.chainId) },
    types: {
      EIP712Domain: [
        { name: "name", type: "string" },
        { name: "version", type: "string" },
        { name: "chainId", type: "uint256" },
        { name: "verifyingContract", type: "address" },
      ],
    },
  });
  return { digest: keccak256(concat(["0x1901", domainSeparator, bulkOrderHash])), ecdsa };
}
