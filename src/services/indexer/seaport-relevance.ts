// Seaport's logs cover every marketplace's orders on the chain (the configured Seaport is the
// canonical one, shared with OpenSea and others). Only the events that can change D1 are applied,
// and so claimed in chain_events: a fill of an order D1 holds or of a known collection's token (a
// sale), a cancellation of an order D1 holds, a counter raised by an offerer with a live order.
// The rest were a chain_events row each, kept forever, and statements that changed nothing: D1
// grew with the whole chain's Seaport traffic (decision 72). Skipping is safe because an order
// ended at or below the indexed head cannot be stored afterwards: submission reads its status and
// counter at the head (decision 58's argument for sales' block reads, applied to the claims).
import { saleOf } from "../chain-events/seaport-sale";
import { knownCollections } from "../collections/known-collections";
import { OFFERER_ORDERS_INDEX } from "../orders/best-listing";
import type { IndexedEvent } from "./decode";

const VALUES_PER_QUERY = 98; // plus the chain id (and nothing else): D1 allows 100 bound parameters

async function existing(db: D1Database, chainId: number, values: string[], select: (marks: string) => string): Promise<Set<string>> {
  const found = new Set<string>();
  const distinct = [...new Set(values)];
  for (let i = 0; i < distinct.length; i += VALUES_PER_QUERY) {
    const chunk = distinct.slice(i, i + VALUES_PER_QUERY);
    const { results } = await db
      .prepare(select(chunk.map(() => "?").join(", ")))
      .bind(chainId, ...chunk)
      .all<{ value: string }>();
    for (const row of results) found.add(row.value);
  }
  return found;
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
    existing(db, chainId, orderHashes, (marks) => `select order_hash as value from orders where chain_id = ? and order_hash in (${marks})`),
    existing(
      db,
      chainId,
      offerers,
      (marks) => `select distinct offerer as value from orders indexed by ${OFFERER_ORDERS_INDEX} where chain_id = ? and status in ('active', 'inactive') and offerer in (${marks})`,
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
