// The deploy body's `whitelist` → allowlist entries → the Merkle tree DropERC721 verifies.
// Pure: no I/O, so deploy can validate before it signs anything.
import { allowlistProof, buildAllowlistTree, verifyAllowlistProof, type AllowlistLeaf, type AllowlistTreeDump } from "../../chain/merkle";
import { AppError } from "../../lib/errors";
import { MAX_UINT256 } from "../../lib/uint256";

export interface AllowlistEntry {
  /** Lower-case. */
  address: string;
  /** Canonical decimal strings. */
  maxClaimable: string;
  price: string;
}

export interface Allowlist {
  merkleRoot: `0x${string}`;
  /** JSON of the tree in StandardMerkleTree.dump() form; what `drop_allowlists.tree` (or R2) stores. */
  tree: string;
}

export interface AllowlistProof extends AllowlistEntry {
  proof: string[];
}

export const MAX_WHITELIST_ENTRIES = 50_000;

const MAX_CLAIMABLE = 2n ** 32n - 1n;
const MAX_UINT256_DIGITS = 78;
const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const ZERO_ADDRESS = `0x${"0".repeat(40)}`;
const DIGITS = /^[0-9]+$/;
const PATH = "body.whitelist";

function lineError(line: number, problem: string): AppError {
  return new AppError("validation_error", `whitelist line ${line}: ${problem}`, [{ path: PATH, message: `line ${line}: ${problem}` }]);
}

/** Keeps error messages short when a client pastes something huge into one field. */
const quoted = (value: string) => JSON.stringify(value.length > 50 ? `${value.slice(0, 47)}...` : value);

/** Leading zeros are tolerated (spreadsheet exports) but stripped before the size checks. */
const withoutLeadingZeros = (digits: string) => digits.replace(/^0+(?=[0-9])/, "");

function parseAddress(raw: string, line: number): string {
  if (!HEX_ADDRESS.test(raw)) throw lineError(line, `address ${quoted(raw)} is not a 20-byte hex address (0x + 40 hex characters)`);
  const address = raw.toLowerCase();
  // A mint to the zero address reverts, so such an entry could never be claimed.
  if (address === ZERO_ADDRESS) throw lineError(line, "address must not be the zero address");
  return address;
}

function parseMaxClaimable(raw: string, line: number): string {
  if (!DIGITS.test(raw)) throw lineError(line, `maxClaimable ${quoted(raw)} must be a positive integer`);
  const value = withoutLeadingZeros(raw);
  if (value === "0") throw lineError(line, "maxClaimable must be at least 1");
  if (value.length > 10 || BigInt(value) > MAX_CLAIMABLE) throw lineError(line, `maxClaimable must be at most ${MAX_CLAIMABLE}`);
  return value;
}

function parsePrice(raw: string, line: number): string {
  if (!DIGITS.test(raw)) {
    throw lineError(line, `price ${quoted(raw)} must be a non-negative integer in the currency's smallest unit (no decimals or exponents)`);
  }
  const value = withoutLeadingZeros(raw);
  if (value.length > MAX_UINT256_DIGITS || BigInt(value) > MAX_UINT256) throw lineError(line, "price must be less than 2^256");
  return value;
}

/**
 * Parses `<address>,<maxClaimable>,<price in smallest unit>` lines. Blank lines and `#` comments
 * are skipped; line numbers in errors count every line of `text` from 1. A text without any
 * entry is rejected too: an allowlist nobody is on would make the drop unclaimable.
 */
export function parseWhitelist(text: string): AllowlistEntry[] {
  const entries: AllowlistEntry[] = [];
  const firstLineOf = new Map<string, number>();
  const lines = text.split("\n");
  for (let index = 0; index < lines.length; index++) {
    const line = index + 1;
    const content = lines[index]!.trim();
    if (content === "" || content.startsWith("#")) continue;
    const fields = content.split(",").map((field) => field.trim());
    if (fields.length !== 3) {
      throw lineError(line, `expected 3 comma-separated fields <address>,<maxClaimable>,<price>, found ${fields.length}`);
    }
    const address = parseAddress(fields[0]!, line);
    const maxClaimable = parseMaxClaimable(fields[1]!, line);
    const price = parsePrice(fields[2]!, line);
    const firstLine = firstLineOf.get(address);
    if (firstLine !== undefined) throw lineError(line, `duplicate address ${address} (already on line ${firstLine})`);
    if (entries.length === MAX_WHITELIST_ENTRIES) {
      throw new AppError("validation_error", `whitelist has more than ${MAX_WHITELIST_ENTRIES} entries`, [
        { path: PATH, message: `at most ${MAX_WHITELIST_ENTRIES} entries; line ${line} is entry ${MAX_WHITELIST_ENTRIES + 1}` },
      ]);
    }
    firstLineOf.set(address, line);
    entries.push({ address, maxClaimable, price });
  }
  if (entries.length === 0) {
    throw new AppError("validation_error", "whitelist has no entries", [
      { path: PATH, message: "no entries; omit whitelist for a drop without an allowlist" },
    ]);
  }
  return entries;
}

export function buildAllowlist(entries: AllowlistEntry[]): Allowlist {
  const dump = buildAllowlistTree(entries.map((entry): AllowlistLeaf => [entry.address, entry.maxClaimable, entry.price]));
  return { merkleRoot: dump.tree[0]!, tree: JSON.stringify(dump) };
}

/**
 * The entry and proof for `address`, or null when it is not listed. Only the leaf's path is
 * hashed (a full re-validation of the stored tree would cost ~150k hashes for a full list), and
 * the proof is checked against the root before it is handed out.
 */
export function findAllowlistEntry(treeJson: string, address: string): AllowlistProof | null {
  const dump = JSON.parse(treeJson) as AllowlistTreeDump;
  const wanted = address.toLowerCase();
  const found = dump.values.find(({ value }) => value[0].toLowerCase() === wanted);
  if (!found) return null;
  const leaf: AllowlistLeaf = [wanted, String(found.value[1]), String(found.value[2])];
  const proof = allowlistProof(dump, found.treeIndex);
  if (!verifyAllowlistProof(dump.tree[0]!, leaf, proof)) throw new Error(`stored allowlist tree does not prove ${wanted}`);
  return { address: wanted, maxClaimable: leaf[1], price: leaf[2], proof };
}
