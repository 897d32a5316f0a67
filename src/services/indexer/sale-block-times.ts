// The block times a range's sales need (`sales.sold_at`), read once per block per run.
import { blockTimestampMs } from "../../chain/log-reader";
import { saleOf } from "../chain-events/seaport-sale";
import { knownCollections } from "../collections/known-collections";
import type { RangeScope } from "./apply-logs";
import type { IndexedEvent } from "./decode";

// A Worker keeps at most six connections open at once; more would only queue (per chain: the
// run indexes chains side by side).
const BLOCK_READS_IN_FLIGHT = 6;

/**
 * The times of the blocks holding sales D1 records (a sale's `sold_at`): fills of orders for a
 * known collection's tokens. Seaport's logs cover every fill on the chain, and the others need no
 * block read (decision 58).
 */
export async function fetchSaleBlockTimes(scope: RangeScope, events: IndexedEvent[]) {
  const sales = events.flatMap((e) => {
    const sale = e.type === "seaport" && e.event.kind === "OrderFulfilled" ? saleOf(e.event) : null;
    return sale ? [{ block: e.blockNumber, contract: sale.contract }] : [];
  });
  if (!sales.length) return;
  const known = await knownCollections(scope.db, scope.chain.chainId, sales.map((sale) => sale.contract));
  const blocks = [...new Set(sales.filter((sale) => known.has(sale.contract)).map((sale) => sale.block))].filter((block) => !scope.blockTimes.has(block));
  for (let i = 0; i < blocks.length; i += BLOCK_READS_IN_FLIGHT) {
    const chunk = blocks.slice(i, i + BLOCK_READS_IN_FLIGHT);
    const times = await Promise.all(chunk.map((block) => blockTimestampMs(scope.chain.rpcUrl, block)));
    chunk.forEach((block, index) => scope.blockTimes.set(block, times[index]!));
  }
}
