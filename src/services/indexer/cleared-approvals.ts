// A token's own ERC-721 approval changes with an Approval log, and is cleared without one by a
// transfer of the token to its own holder. Either may leave the holder's listings of the token
// unfillable, or not: D1 cannot tell a listing that rested on the token's approval from one an
// approval for all covers. Before such a log is applied, the chain is asked, at the head, whether
// the holder has approved each listed operator for all; those listings are kept, the others
// deactivated (decision 91). Approvals of tokens with no listing it could end are not applied
// (nor claimed): they change nothing D1 holds, and OpenZeppelin 4 collections log one with every
// transfer. Skipping is safe for decision 72's reason: a listing submitted later is checked
// against the chain's head.
import { canOperate } from "../../chain/nft-reads";
import { batchOverJsonLists } from "../../db/json-list";
import type { ChainConfig } from "../../lib/chains";
import { movedAwayInSameTransaction, type IndexedEvent } from "./decode";

const ZERO = "0x0000000000000000000000000000000000000000";
const tokenKey = (contract: string, tokenId: string) => `${contract}:${tokenId}`;

/** The holder whose token's approval this event replaces or clears, and the address approved after it. */
function clearedApproval(event: IndexedEvent, events: readonly IndexedEvent[]): { contract: string; tokenId: string; holder: string; approved: string } | null {
  // The transfer right after it ends the owner's listings whatever the chain says: nothing to read.
  if (event.type === "tokenApproval" && movedAwayInSameTransaction(event, events)) return null;
  if (event.type === "tokenApproval") return { contract: event.approval.contract, tokenId: event.approval.tokenId, holder: event.approval.owner, approved: event.approval.approved };
  if (event.type === "erc721" && event.transfer.from === event.transfer.to && event.transfer.from !== ZERO) {
    return { contract: event.transfer.contract, tokenId: event.transfer.tokenId, holder: event.transfer.from, approved: ZERO };
  }
  return null;
}

interface ListedToken {
  contract_address: string;
  token_id: string;
  offerer: string;
  operator: string;
}

/**
 * `events` with each approval change annotated with the operators an approval for all still
 * covers (`keepOperators`), and without the Approvals that can end no listing. A read that fails
 * counts as not covered: the listing is deactivated, and revival retries it (decision 21).
 */
export async function withCoveredListings(db: D1Database, chain: ChainConfig, events: IndexedEvent[]): Promise<IndexedEvent[]> {
  const changes = events.map((event) => clearedApproval(event, events));
  const tokens = new Map<string, [string, string]>();
  for (const change of changes) if (change) tokens.set(tokenKey(change.contract, change.tokenId), [change.contract, change.tokenId]);
  if (!tokens.size) return events;
  // CROSS JOIN keeps the short list outside: without statistics SQLite otherwise walks the chain's
  // every order and scans the list for each (seconds on a large table).
  const listed = db.prepare(
    `select distinct o.contract_address, o.token_id, o.offerer, coalesce(o.operator, ?3) as operator
     from json_each(?2) j cross join orders o indexed by orders_token_status_price_idx
     where o.chain_id = ?1 and o.contract_address = json_extract(j.value, '$[0]') and o.token_id = json_extract(j.value, '$[1]') and o.status = 'active'`,
  );
  const [rows = []] = await batchOverJsonLists<ListedToken>(db, [...tokens.values()], (list) => [listed.bind(chain.chainId, list, chain.seaportAddress.toLowerCase())]);

  const exposedOf = (change: NonNullable<ReturnType<typeof clearedApproval>>) =>
    rows.filter((row) => row.contract_address === change.contract && row.token_id === change.tokenId && row.offerer === change.holder && row.operator !== change.approved);
  const reads = new Map<string, Promise<boolean>>();
  const coveredFor = (contract: string, holder: string, operator: string) => {
    const key = `${contract}:${holder}:${operator}`;
    let read = reads.get(key);
    if (!read) reads.set(key, (read = canOperate(chain.rpcUrl, contract, holder, operator).catch(() => false)));
    return read;
  };
  const annotated = await Promise.all(
    events.map(async (event, index): Promise<IndexedEvent | null> => {
      const change = changes[index];
      if (!change || (event.type !== "tokenApproval" && event.type !== "erc721")) return event;
      const exposed = exposedOf(change);
      const covered = await Promise.all(exposed.map((row) => coveredFor(row.contract_address, row.offerer, row.operator)));
      const keepOperators = [...new Set(exposed.filter((_, i) => covered[i]).map((row) => row.operator))];
      if (event.type === "tokenApproval" && exposed.every((_, i) => covered[i])) return null;
      return { ...event, keepOperators };
    }),
  );
  return annotated.filter((event): event is IndexedEvent => event !== null);
}
