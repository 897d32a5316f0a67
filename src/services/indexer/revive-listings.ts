// Listings that went `inactive` (the offerer sold or moved the token, or revoked Seaport's
// approval) are still valid on Seaport and fill again once the offerer can deliver: the token
// comes back, or the approval is granted again. The logs say when that may have happened; the
// chain decides whether it did (ownership, approval for all or for the token, Seaport's own
// status and the offerer's counter), read at the head, because D1 cannot know a per-token
// approval was cleared by the transfer. Only a confirmed-fillable order becomes `active` again (decision 21). The approval
// that counts is the one given to the order's operator: Seaport, or the order's conduit (decision 55).
import { fillStateProblem, ITEM_TYPE, seaportCounter, seaportOrderStatus, validationLost, type OrderComponentsJson } from "../../chain/seaport";
import { canOperate, erc1155BalanceOf, erc721OwnerOf } from "../../chain/nft-reads";
import type { ChainConfig } from "../../lib/chains";
import { ORDER_OPERATOR_SQL } from "../chain-events/order-effects";
import { refreshBestListingsWhere } from "../orders/best-listing";
import { JSON_LIST_CHUNK } from "../../db/json-list";
import { movedAwayInSameTransaction, type IndexedEvent } from "./decode";

const ZERO = "0x0000000000000000000000000000000000000000";
/** Chain reads are three or four calls per order, plus one per offerer: each applied range of logs checks at most this many (decision 21). */
export const MAX_REVIVAL_CHECKS_PER_RANGE = 50;
/** D1 binds at most 100 parameters per statement; each marking statement spends 3 on its due time, chain and time. */
const CANDIDATE_PARAMS_PER_QUERY = 97;

/**
 * Who may be able to deliver again: an offerer that received a token, an ERC-1155 sender whose
 * listings D1 judged over-listed, one that granted an operator approval on a contract (that
 * operator's orders only), or one whose token's own approval changed.
 */
type Candidate = { contract: string; offerer: string } & ({ tokenId: string; operator?: undefined } | { tokenId: null; operator: string });

function candidatesOf(events: readonly IndexedEvent[]): Candidate[] {
  const found = new Map<string, Candidate>();
  const add = (candidate: Candidate) => found.set(`${candidate.contract}:${candidate.offerer}:${candidate.tokenId ?? candidate.operator}`, candidate);
  // Checked after everyone else, so a range of sales cannot use up the checks receivers need.
  const senders = new Map<string, Candidate>();
  for (const event of events) {
    // A mint cannot bring back a token anyone listed before.
    if (event.type === "erc721" && event.transfer.from !== ZERO && event.transfer.to !== ZERO) {
      add({ contract: event.transfer.contract, offerer: event.transfer.to, tokenId: event.transfer.tokenId });
    }
    if (event.type === "erc1155") {
      for (const t of event.transfers) {
        if (t.from !== ZERO && t.to !== ZERO) add({ contract: t.contract, offerer: t.to, tokenId: t.id });
        // The sender's listings died if D1 thought it now held fewer units than listed; D1 may
        // not know its whole balance (units received before the collection was indexed).
        if (t.from !== ZERO) senders.set(`${t.contract}:${t.from}:${t.id}`, { contract: t.contract, offerer: t.from, tokenId: t.id });
      }
    }
    if (event.type === "approval" && event.approval.approved) {
      add({ contract: event.approval.contract, offerer: event.approval.owner, tokenId: null, operator: event.approval.operator });
    }
    // Granted to an order's operator, or replaced while an approval for all still covers the
    // listings it deactivated (decision 91); not the approval a transfer clears on its way out.
    if (event.type === "tokenApproval" && !movedAwayInSameTransaction(event, events)) {
      add({ contract: event.approval.contract, offerer: event.approval.owner, tokenId: event.approval.tokenId });
    }
  }
  for (const [key, sender] of senders) if (!found.has(key)) found.set(key, sender);
  return [...found.values()];
}

interface InactiveOrder {
  order_hash: string;
  contract_address: string;
  token_id: string;
  offerer: string;
  quantity: string;
  parameters: string;
  operator: string | null;
  /** `0x` for an order listed on its validation on chain (decision 103). */
  signature: string;
  /** The offerer's Seaport counter the order was signed under, canonical decimal. */
  counter: string;
}

/** Each candidate's SQL condition and its parameters. */
function conditionOf(candidate: Candidate, seaport: string): { sql: string; params: string[] } {
  return candidate.tokenId === null
    ? { sql: `(contract_address = ? and offerer = ? and ${ORDER_OPERATOR_SQL} = ?)`, params: [candidate.contract, candidate.offerer, seaport, candidate.operator] }
    : { sql: "(contract_address = ? and offerer = ? and token_id = ?)", params: [candidate.contract, candidate.offerer, candidate.tokenId] };
}

/** Conditions grouped so that each group's parameters fit one statement. */
function conditionGroups(candidates: Candidate[], seaport: string) {
  const groups: { sql: string[]; params: string[] }[] = [];
  for (const condition of candidates.map((candidate) => conditionOf(candidate, seaport))) {
    let group = groups.at(-1);
    if (!group || group.params.length + condition.params.length > CANDIDATE_PARAMS_PER_QUERY) groups.push((group = { sql: [], params: [] }));
    group.sql.push(condition.sql);
    group.params.push(...condition.params);
  }
  return groups;
}

const ORDER_COLUMNS = "order_hash, contract_address, token_id, offerer, quantity, parameters, operator, counter, signature";

/**
 * The inactive, unexpired listings the candidates name, each marked due for a check (an earlier
 * mark is kept, so the oldest stay first in line): the checks this range cannot make, because its
 * reads fail or its 50 checks run out, are made by a later run (decision 97).
 */
async function markedDue(db: D1Database, chain: ChainConfig, candidates: Candidate[], nowMs: number): Promise<InactiveOrder[]> {
  const groups = conditionGroups(candidates, chain.seaportAddress.toLowerCase());
  const answers = await db.batch<{ order_hash: string }>(
    groups.map((group) =>
      db
        .prepare(
          `update orders set revival_due_at = coalesce(revival_due_at, ?)
           where chain_id = ? and status = 'inactive' and end_time > ? and (${group.sql.join(" or ")})
           returning order_hash`,
        )
        .bind(nowMs, chain.chainId, nowMs, ...group.params),
    ),
  );
  const hashes = answers.flatMap((answer) => answer.results.map((row) => row.order_hash));
  if (!hashes.length) return [];
  // Only the orders checked now are read whole (the others may be thousands: one approval for all),
  // from one JSON list of at most JSON_LIST_CHUNK hashes (D1's 1 MB per bound string); the rest
  // stay due for the retries.
  const { results } = await db
    .prepare(`select ${ORDER_COLUMNS} from orders where order_hash in (select value from json_each(?)) order by revival_due_at limit ?`)
    .bind(JSON.stringify(hashes.slice(0, JSON_LIST_CHUNK)), MAX_REVIVAL_CHECKS_PER_RANGE)
    .all<InactiveOrder>();
  return results;
}

/** Each offerer's current Seaport counter, read once per revival however many of its orders are checked. */
type CounterReads = Map<string, Promise<bigint>>;

async function fillableNow(chain: ChainConfig, order: InactiveOrder, counters: CounterReads): Promise<boolean> {
  let counterRead = counters.get(order.offerer);
  if (!counterRead) counters.set(order.offerer, (counterRead = seaportCounter(chain.rpcUrl, chain.seaportAddress, order.offerer)));
  const erc721 = (JSON.parse(order.parameters) as OrderComponentsJson).offer[0]?.itemType === ITEM_TYPE.ERC721;
  const [holds, approved, status, counter] = await Promise.all([
    erc721
      ? erc721OwnerOf(chain.rpcUrl, order.contract_address, order.token_id).then((owner) => owner === order.offerer)
      : erc1155BalanceOf(chain.rpcUrl, order.contract_address, order.offerer, order.token_id).then((balance) => balance >= BigInt(order.quantity)),
    canOperate(chain.rpcUrl, order.contract_address, order.offerer, order.operator ?? chain.seaportAddress, erc721 ? order.token_id : undefined),
    seaportOrderStatus(chain.rpcUrl, chain.seaportAddress, order.order_hash),
    // A counter raised at the head (cancel-all) in a block the indexer has not reached yet.
    counterRead,
  ]);
  return holds && approved && fillStateProblem(status) === null && !validationLost(order.signature, status) && counter.toString() === order.counter;
}

/**
 * Re-activates the inactive listings these logs may have made fillable again. Listings whose
 * check cannot be made now stay due and are checked by a later run (retryDueRevivals).
 */
export async function reviveListings(db: D1Database, chain: ChainConfig, events: readonly IndexedEvent[]): Promise<void> {
  const candidates = candidatesOf(events);
  if (!candidates.length) return;
  const nowMs = Date.now();
  await checkAndRevive(db, chain, await markedDue(db, chain, candidates, nowMs), nowMs);
}

/** Each run, per chain: the oldest listings whose revival check is still due (decision 97). */
export async function retryDueRevivals(db: D1Database, chain: ChainConfig): Promise<void> {
  const nowMs = Date.now();
  const { results } = await db
    .prepare(
      `select ${ORDER_COLUMNS} from orders indexed by orders_revival_due_idx
       where chain_id = ? and revival_due_at is not null and status = 'inactive' and end_time > ? order by revival_due_at limit ?`,
    )
    .bind(chain.chainId, nowMs, MAX_REVIVAL_CHECKS_PER_RANGE)
    .all<InactiveOrder>();
  await checkAndRevive(db, chain, results, nowMs);
}

/**
 * Asks the chain about each order: fillable ones become `active` (where D1 does not contradict
 * it), and every answered one is no longer due. An order whose reads failed stays due, moved to
 * the back of the line so that one failing contract cannot hold up the others.
 */
async function checkAndRevive(db: D1Database, chain: ChainConfig, orders: InactiveOrder[], nowMs: number): Promise<void> {
  if (!orders.length) return;
  const counters: CounterReads = new Map();
  const checks = await Promise.all(orders.map((order) => fillableNow(chain, order, counters).catch(() => null)));
  const hashesWhere = (keep: (check: boolean | null) => boolean) => orders.filter((_, index) => keep(checks[index]!)).map((order) => order.order_hash);
  const [answered, unanswered, revived] = [hashesWhere((check) => check !== null), hashesWhere((check) => check === null), hashesWhere((check) => check === true)];
  const list = (hashes: string[]) => JSON.stringify(hashes);
  const statements: D1PreparedStatement[] = [];
  if (answered.length) statements.push(db.prepare("update orders set revival_due_at = null where order_hash in (select value from json_each(?))").bind(list(answered)));
  if (unanswered.length) {
    statements.push(db.prepare("update orders set revival_due_at = ? where revival_due_at is not null and order_hash in (select value from json_each(?))").bind(nowMs, list(unanswered)));
  }
  if (revived.length) {
    statements.push(
      db
        .prepare(`update orders set status = 'active', updated_at = ? where status = 'inactive' and end_time > ? and order_hash in (select value from json_each(?)) and ${D1_AGREES}`)
        .bind(nowMs, nowMs, list(revived)),
      refreshBestListingsWhere(db, "order_hash in (select value from json_each(?))", [list(revived)], nowMs),
    );
  }
  await db.batch(statements);
}

/**
 * D1 must not name another holder of an ERC-721 token at the time of the write: a receipt applied
 * during the chain reads (a buy of the token through another listing) moved it, and its Transfer,
 * claimed by the receipt, would never come back to deactivate this listing. A holder D1 does not
 * know yet (the token returns in a block the indexer has not reached) waits for that block's run,
 * which hints the listing again (decision 96). ERC-1155 balances in D1 can be short of the
 * chain's (units received before the collection was indexed), so the chain alone decides those.
 */
const D1_AGREES = `not exists (select 1 from ownerships o where o.chain_id = orders.chain_id and o.contract_address = orders.contract_address
  and o.token_id = orders.token_id and o.block_number is not null and o.owner_address != orders.offerer)`;
