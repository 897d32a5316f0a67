// Seaport's logs cover every marketplace's orders on the chain (the configured Seaport is the
// canonical one, shared with OpenSea and others). Only the events that can change D1 are applied,
// and so claimed in chain_events: a fill of an order D1 holds or of a known collection's token (a
// sale), a cancellation of an order D1 holds, a counter raised by an offerer with a live order.
// Applying the rest would cost a chain_events row each, kept forever, and statements that change
// nothing: D1 would grow with the whole chain's Seaport traffic (decision 72). Skipping is safe
// because an order ended at or below the indexed head cannot be stored afterwards: submission
// reads its status and counter at the head.
import { batchOverJsonLists } from "../../db/json-list";
import { saleOf } from "../chain-events/seaport-sale";
import { knownCollections } from "../collections/known-collections";
import { OFFERER_ORDERS_INDEX } from "../orders/best-listing";
import type { IndexedEvent } from "./decode";

/** The distinct `value`s `select` finds among `values`, bound as JSON lists (D1's parameter caps; see db/json-list.ts). */
async function existing(db: D1Database, chainId: number, values: string[], select: (list: string) => string): Promise<Set<string>> {
  const statement = db.prepare(select("(select value from json_each(?2))"));
  const [rows = []] = await batchOverJsonLists<{ value: string }>(db, [...new Set(values)], (list) => [statement.bind(chainId, list)]);
  return new Set(rows.map((row) => row.value));
}

/** `events` without the Seaport events that concern nothing D1 holds. */
export async function withRelevantSeaportEvents(db: D1Database, chainId: number, events: IndexedEvent[]): Promise<IndexedEvent[]> {
  const seaport = events.flatMap((e) => (e.type === "seaport" ? [e.event] : []));
  if (!seaport.length) return events;
  const orderHashes = seaport.flatMap((event) => (event.kind === "CounterIncremented" ? [] : [event.orderHash]));
  const offerers = seaport.flatMap((event) => (event.kind === "CounterIncremented" ? [event.offerer] : []));
  const saleContracts = seaport.flatMap((event) => {
    const sale = event.kind === "OrderFulfilled" ? saleOf(event) : null;
    return sale ? [sale.contract] : [];
  });
  const [knownOrders, liveOfferers, collections] = await Promise.all([
    existing(db, chainId, orderHashes, (list) => `select order_hash as value from orders where chain_id = ?1 and order_hash in ${list}`),
    existing(
      db,
      chainId,
      offerers,
      (list) => `select distinct offerer as value from orders indexed by ${OFFERER_ORDERS_INDEX} where chain_id = ?1 and status in ('active', 'inactive') and offerer in ${list}`,
    ),
    knownCollections(db, chainId, saleContracts),
  ]);
  return events.filter((e) => {
    if (e.type !== "seaport") return true;
    const event = e.event;
    if (event.kind === "CounterIncremented") return liveOfferers.has(event.offerer);
    if (knownOrders.has(event.orderHash)) return true;
    if (event.kind === "OrderCancelled") return false;
    const sale = saleOf(event);
    return sale !== null && collections.has(sale.contract);
  });
}
