// The block times a range's sales need (`sales.sold_at`), read once per block per run.
import { blockTimestampMs } from "../../chain/log-reader";
import { saleOf } from "../chain-events/seaport-sale";
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
  const known = await knownCollections(scope.db, scope.chain.chainId, [...new Set(sales.map((sale) => sale.contract))]);
  const blocks = [...new Set(sales.filter((sale) => known.has(sale.contract)).map((sale) => sale.block))].filter((block) => !scope.blockTimes.has(block));
  for (let i = 0; i < blocks.length; i += BLOCK_READS_IN_FLIGHT) {
    const chunk = blocks.slice(i, i + BLOCK_READS_IN_FLIGHT);
    const times = await Promise.all(chunk.map((block) => blockTimestampMs(scope.chain.rpcUrl, block)));
    chunk.forEach((block, index) => scope.blockTimes.set(block, times[index]!));
  }
}

const CONTRACTS_PER_QUERY = 99; // plus the chain id: D1 allows 100 bound parameters

/** The contracts among `contracts` that have a collection row (tracked or not: sales attach to it). */
async function knownCollections(db: D1Database, chainId: number, contracts: string[]) {
  const known = new Set<string>();
  for (let i = 0; i < contracts.length; i += CONTRACTS_PER_QUERY) {
    const chunk = contracts.slice(i, i + CONTRACTS_PER_QUERY);
    const { results } = await db
      .prepare(`select contract_address from collections where chain_id = ? and contract_address in (${chunk.map(() => "?").join(", ")})`)
      .bind(chainId, ...chunk)
      .all<{ contract_address: string }>();
    for (const row of results) known.add(row.contract_address);
  }
  return known;
}
