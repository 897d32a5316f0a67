// Per-token approvals are applied (and claimed in chain_events) only for tokens with an active
// listing: every other approval changes nothing D1 holds, and a collection built on OpenZeppelin 4
// logs one with every transfer. Skipping is safe for the reason decision 72 gives for Seaport's
// logs: a listing submitted later is checked against the chain's head (decision 91).
import { batchOverJsonLists } from "../../db/json-list";
import type { IndexedEvent } from "./decode";

const tokenKey = (contract: string, tokenId: string) => `${contract}:${tokenId}`;

/** `events` without the ERC-721 Approvals of tokens no active order offers. */
export async function withRelevantTokenApprovals(db: D1Database, chainId: number, events: IndexedEvent[]): Promise<IndexedEvent[]> {
  const tokens = new Map<string, [string, string]>();
  for (const e of events) if (e.type === "tokenApproval") tokens.set(tokenKey(e.approval.contract, e.approval.tokenId), [e.approval.contract, e.approval.tokenId]);
  if (!tokens.size) return events;
  // The token's key leads orders_token_status_price_idx; the list stays as small as the range's approvals.
  const listed = db.prepare(
    `select distinct o.contract_address, o.token_id from json_each(?2) j
     join orders o on o.chain_id = ?1 and o.contract_address = json_extract(j.value, '$[0]') and o.token_id = json_extract(j.value, '$[1]') and o.status = 'active'`,
  );
  const [rows = []] = await batchOverJsonLists<{ contract_address: string; token_id: string }>(db, [...tokens.values()], (list) => [listed.bind(chainId, list)]);
  const active = new Set(rows.map((row) => tokenKey(row.contract_address, row.token_id)));
  return events.filter((e) => e.type !== "tokenApproval" || active.has(tokenKey(e.approval.contract, e.approval.tokenId)));
}
