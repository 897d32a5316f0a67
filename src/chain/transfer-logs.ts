import { decodeEventLog, parseAbiItem, toEventSelector, type Log } from "viem";
import { logRef, type LogRef } from "./log-ref";

const transferEvent = parseAbiItem("event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)");
const transferSingleEvent = parseAbiItem(
  "event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)",
);
const transferBatchEvent = parseAbiItem(
  "event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)",
);
const approvalForAllEvent = parseAbiItem("event ApprovalForAll(address indexed owner, address indexed operator, bool approved)");
/** ERC-721's per-token approval; ERC-20's Approval has the same topic0 with 3 topics. */
const tokenApprovalEvent = parseAbiItem("event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)");

/** topic0 values of the collection events the indexer reads (ERC-721 and ERC-1155). */
export const TRANSFER_TOPIC = toEventSelector(transferEvent);
export const TRANSFER_SINGLE_TOPIC = toEventSelector(transferSingleEvent);
export const TRANSFER_BATCH_TOPIC = toEventSelector(transferBatchEvent);
export const APPROVAL_FOR_ALL_TOPIC = toEventSelector(approvalForAllEvent);
export const TOKEN_APPROVAL_TOPIC = toEventSelector(tokenApprovalEvent);
const ZERO = "0x0000000000000000000000000000000000000000";

export interface Erc721Transfer extends LogRef {
  contract: string;
  from: string;
  to: string;
  tokenId: string;
}

/**
 * `decode` applied to every live log of one of `events` (its topic0 and topic count), entries
 * concatenated. Other logs are passed over before decoding: viem throws for a log of another
 * event, and building that error cost more than the decoding (a receipt's Transfer tried as
 * ERC-1155). A log `decode` cannot decode (malformed data) is skipped.
 */
function decodeEach<T>(logs: readonly Log[], events: { topics: readonly string[]; topicCount: number }, decode: (log: Log) => readonly T[]): T[] {
  const decoded: T[] = [];
  for (const log of logs) {
    if (log.removed || log.topics.length !== events.topicCount || !events.topics.includes(log.topics[0]!)) continue;
    let entries: readonly T[];
    try {
      entries = decode(log);
    } catch {
      continue; // not this event
    }
    // One by one: a batch of many thousand ids is too many arguments for a spread.
    for (const entry of entries) decoded.push(entry);
  }
  return decoded;
}

/** ERC-721 Transfer logs (4 topics; ERC-20 Transfers have 3 and are skipped), addresses lower-case. */
export function erc721Transfers(logs: readonly Log[]): Erc721Transfer[] {
  return decodeEach(logs, { topics: [TRANSFER_TOPIC], topicCount: 4 }, (log) => {
    const { args } = decodeEventLog({ abi: [transferEvent], data: log.data, topics: log.topics });
    return [{ contract: log.address.toLowerCase(), from: args.from.toLowerCase(), to: args.to.toLowerCase(), tokenId: args.tokenId.toString(), ...logRef(log) }];
  });
}

export const isMint = (transfer: Erc721Transfer) => transfer.from === ZERO;
export const isBurn = (transfer: Erc721Transfer) => transfer.to === ZERO;

export interface Erc1155Transfer extends LogRef {
  contract: string;
  operator: string;
  from: string;
  to: string;
  id: string;
  value: string;
}

/**
 * ERC-1155 TransferSingle and TransferBatch logs, one entry per (id, value) pair; the entries of a
 * batch share their log's position.
 */
export function erc1155Transfers(logs: readonly Log[]): Erc1155Transfer[] {
  return decodeEach(logs, { topics: [TRANSFER_SINGLE_TOPIC, TRANSFER_BATCH_TOPIC], topicCount: 4 }, (log) => {
    const event = decodeEventLog({ abi: [transferSingleEvent, transferBatchEvent], data: log.data, topics: log.topics });
    const base = {
      contract: log.address.toLowerCase(),
      operator: event.args.operator.toLowerCase(),
      from: event.args.from.toLowerCase(),
      to: event.args.to.toLowerCase(),
      ...logRef(log),
    };
    if (event.eventName === "TransferSingle") return [{ ...base, id: event.args.id.toString(), value: event.args.value.toString() }];
    const { ids, values } = event.args;
    // A malformed batch (length mismatch) is rejected by compliant contracts; pair what exists.
    return ids.slice(0, values.length).map((id, i) => ({ ...base, id: id.toString(), value: values[i]!.toString() }));
  });
}

export interface ApprovalForAll extends LogRef {
  contract: string;
  owner: string;
  operator: string;
  approved: boolean;
}

/** ApprovalForAll logs (the same event in ERC-721 and ERC-1155). */
export function approvalsForAll(logs: readonly Log[]): ApprovalForAll[] {
  return decodeEach(logs, { topics: [APPROVAL_FOR_ALL_TOPIC], topicCount: 3 }, (log) => {
    const { args } = decodeEventLog({ abi: [approvalForAllEvent], data: log.data, topics: log.topics });
    return [{ contract: log.address.toLowerCase(), owner: args.owner.toLowerCase(), operator: args.operator.toLowerCase(), approved: args.approved, ...logRef(log) }];
  });
}

export interface TokenApproval extends LogRef {
  contract: string;
  owner: string;
  /** The one address now allowed to move the token besides operators approved for all; the zero address clears it. */
  approved: string;
  tokenId: string;
}

/** ERC-721 Approval logs (4 topics; ERC-20 Approvals have 3 and are skipped), addresses lower-case. */
export function tokenApprovals(logs: readonly Log[]): TokenApproval[] {
  return decodeEach(logs, { topics: [TOKEN_APPROVAL_TOPIC], topicCount: 4 }, (log) => {
    const { args } = decodeEventLog({ abi: [tokenApprovalEvent], data: log.data, topics: log.topics });
    return [{ contract: log.address.toLowerCase(), owner: args.owner.toLowerCase(), approved: args.approved.toLowerCase(), tokenId: args.tokenId.toString(), ...logRef(log) }];
  });
}
