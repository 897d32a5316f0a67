// The collection-log decoders read a receipt's or a range's logs, which mix every event the
// contracts emitted. Each decoder takes exactly its own event (topic0 and topic count) and passes
// over the rest, an ERC-20 Transfer (three topics) and a malformed log of its own event included.
import { describe, expect, it } from "vitest";
import { encodeAbiParameters, encodeEventTopics, parseAbiItem, type Hex, type Log } from "viem";
import { approvalsForAll, erc1155Transfers, erc721Transfers, tokenApprovals } from "../../src/chain/transfer-logs";

const NFT = "0x00000000000000000000000000000000000000a1";
const TOKEN = "0x00000000000000000000000000000000000000b2";
const [ALICE, BOB, OPERATOR] = ["0x00000000000000000000000000000000000000a4", "0x00000000000000000000000000000000000000b0", "0x00000000000000000000000000000000000000c0"] as const;

let logIndex = 0;
/** encodeEventTopics gives indexed value types only here: every topic is one 32-byte word. */
function log(address: string, topics: readonly (Hex | Hex[] | null)[], data: Hex = "0x", removed = false): Log {
  return { address: address as Hex, topics: topics as Log["topics"], data, blockNumber: 7n, blockHash: `0x${"11".repeat(32)}`, transactionHash: `0x${"22".repeat(32)}`, transactionIndex: 0, logIndex: logIndex++, removed };
}

const erc721Transfer = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)");
const erc20Transfer = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 value)");
const single = parseAbiItem("event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)");
const batch = parseAbiItem("event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)");
const approvalForAll = parseAbiItem("event ApprovalForAll(address indexed owner, address indexed operator, bool approved)");
const tokenApproval = parseAbiItem("event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)");
const unrelated = parseAbiItem("event Moved(address indexed a, address indexed b, uint256 indexed c)");

const logs: Log[] = [
  log(NFT, encodeEventTopics({ abi: [erc721Transfer], args: { from: ALICE, to: BOB, tokenId: 5n } })),
  log(TOKEN, encodeEventTopics({ abi: [erc20Transfer], args: { from: ALICE, to: BOB } }), encodeAbiParameters([{ type: "uint256" }], [10n])),
  log(NFT, encodeEventTopics({ abi: [single], args: { operator: OPERATOR, from: ALICE, to: BOB } }), encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }], [3n, 2n])),
  log(NFT, encodeEventTopics({ abi: [batch], args: { operator: OPERATOR, from: ALICE, to: BOB } }), encodeAbiParameters([{ type: "uint256[]" }, { type: "uint256[]" }], [[8n, 9n], [1n, 4n]])),
  // TransferSingle's topics with data too short for two words: malformed, skipped.
  log(NFT, encodeEventTopics({ abi: [single], args: { operator: OPERATOR, from: ALICE, to: BOB } }), "0x01"),
  log(NFT, encodeEventTopics({ abi: [approvalForAll], args: { owner: ALICE, operator: OPERATOR } }), encodeAbiParameters([{ type: "bool" }], [true])),
  log(NFT, encodeEventTopics({ abi: [tokenApproval], args: { owner: BOB, approved: OPERATOR, tokenId: 5n } })),
  log(NFT, encodeEventTopics({ abi: [unrelated], args: { a: ALICE, b: BOB, c: 1n } })),
  // A log a reorg removed.
  log(NFT, encodeEventTopics({ abi: [erc721Transfer], args: { from: BOB, to: ALICE, tokenId: 5n } }), "0x", true),
];

describe("the collection-log decoders", () => {
  it("each take their own event from a mixed list, skipping ERC-20 Transfers, other events, malformed and removed logs", () => {
    expect(erc721Transfers(logs).map(({ contract, from, to, tokenId, logIndex }) => ({ contract, from, to, tokenId, logIndex }))).toEqual([
      { contract: NFT, from: ALICE, to: BOB, tokenId: "5", logIndex: logs[0]!.logIndex },
    ]);
    expect(erc1155Transfers(logs).map(({ id, value, operator, logIndex }) => ({ id, value, operator, logIndex }))).toEqual([
      { id: "3", value: "2", operator: OPERATOR, logIndex: logs[2]!.logIndex },
      { id: "8", value: "1", operator: OPERATOR, logIndex: logs[3]!.logIndex },
      { id: "9", value: "4", operator: OPERATOR, logIndex: logs[3]!.logIndex },
    ]);
    expect(approvalsForAll(logs).map(({ owner, operator, approved }) => ({ owner, operator, approved }))).toEqual([{ owner: ALICE, operator: OPERATOR, approved: true }]);
    expect(tokenApprovals(logs).map(({ owner, approved, tokenId }) => ({ owner, approved, tokenId }))).toEqual([{ owner: BOB, approved: OPERATOR, tokenId: "5" }]);
  });
});
