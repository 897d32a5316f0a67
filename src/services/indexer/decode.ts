// One range's raw logs → the chain events the indexer applies, in chain order. A TransferBatch
// is one event (one log, one claim) carrying all its (id, value) pairs.
import type { ChainLog } from "../../chain/log-reader";
import { pickLogRef, type LogRef } from "../../chain/log-ref";
import { decodeSeaportLogs, type SeaportEvent } from "../../chain/seaport-events";
import {
  approvalsForAll,
  erc1155Transfers,
  erc721Transfers,
  tokenApprovals,
  type ApprovalForAll,
  type Erc1155Transfer,
  type Erc721Transfer,
  type TokenApproval,
} from "../../chain/transfer-logs";

/**
 * `keepOperators`: operators the holder has approved for all at the head, whose listings a change
 * of the token's own approval leaves alive (indexer/cleared-approvals.ts; decision 91).
 */
export type IndexedEvent = LogRef &
  (
    | { type: "erc721"; transfer: Erc721Transfer; keepOperators?: string[] }
    | { type: "erc1155"; transfers: Erc1155Transfer[] }
    | { type: "approval"; approval: ApprovalForAll }
    | { type: "tokenApproval"; approval: TokenApproval; keepOperators?: string[] }
    | { type: "seaport"; event: SeaportEvent }
  );

export function decodeIndexedLogs(logs: readonly ChainLog[], seaportAddress: string | null): IndexedEvent[] {
  const events: IndexedEvent[] = [
    ...erc721Transfers(logs).map((transfer): IndexedEvent => ({ type: "erc721", transfer, ...pickLogRef(transfer) })),
    ...approvalsForAll(logs).map((approval): IndexedEvent => ({ type: "approval", approval, ...pickLogRef(approval) })),
    ...tokenApprovals(logs).map((approval): IndexedEvent => ({ type: "tokenApproval", approval, ...pickLogRef(approval) })),
    ...(seaportAddress ? decodeSeaportLogs(logs, seaportAddress) : []).map((event): IndexedEvent => ({ type: "seaport", event, ...pickLogRef(event) })),
  ];
  const batches = new Map<string, Erc1155Transfer[]>();
  for (const transfer of erc1155Transfers(logs)) {
    const key = `${transfer.transactionHash}:${transfer.logIndex}`;
    const group = batches.get(key);
    if (group) group.push(transfer);
    else batches.set(key, [transfer]);
  }
  for (const transfers of batches.values()) events.push({ type: "erc1155", transfers, ...pickLogRef(transfers[0]!) });
  return events.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
}

const ZERO = "0x0000000000000000000000000000000000000000";

/** The tokens this event moves, with their sender and recipient (ERC-1155 batches item by item). */
function movesOf(event: IndexedEvent): { contract: string; tokenId: string; from: string; to: string }[] {
  if (event.type === "erc721") return [{ contract: event.transfer.contract, tokenId: event.transfer.tokenId, from: event.transfer.from, to: event.transfer.to }];
  if (event.type === "erc1155") return event.transfers.map((t) => ({ contract: t.contract, tokenId: t.id, from: t.from, to: t.to }));
  return [];
}

/** Tokens this event mints (transfers from the zero address). */
export const mintsOf = (event: IndexedEvent) => movesOf(event).filter((move) => move.from === ZERO).map(({ contract, tokenId }) => ({ contract, tokenId }));

/** Tokens this event moves between holders (neither a mint nor a burn). */
export const handoversOf = (event: IndexedEvent) =>
  movesOf(event).filter((move) => move.from !== ZERO && move.to !== ZERO).map(({ contract, tokenId }) => ({ contract, tokenId }));

/** OpenZeppelin 4 logs Approval(owner, 0, id) before every Transfer from the owner: the transfer decides. */
export function movedAwayInSameTransaction(event: IndexedEvent & { type: "tokenApproval" }, events: readonly IndexedEvent[]): boolean {
  const { contract, owner, tokenId } = event.approval;
  return events.some(
    (other) =>
      other.type === "erc721" &&
      other.transactionHash === event.transactionHash &&
      other.transfer.contract === contract &&
      other.transfer.tokenId === tokenId &&
      other.transfer.from === owner &&
      other.transfer.to !== owner,
  );
}
