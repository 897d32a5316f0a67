// What Seaport says at the head wins over a stale `orders` row: a listing cancelled or filled on
// Seaport before the indexer reached its log (or, for a row stored without decision 66's checks,
// before the service stored it) is recorded when a buy reads that state (decision 68), so it
// stops being a best listing or a floor at once.
import { seaportFinalStatus, type OnChainOrderStatus } from "../../chain/seaport";
import { refreshBestListingsWhere } from "./best-listing";

export async function recordSeaportEnd(db: D1Database, chainId: number, orderHash: string, status: OnChainOrderStatus, nowMs = Date.now()): Promise<void> {
  const end = seaportFinalStatus(status);
  if (!end) return;
  // A fill's log (the indexer's, with its transaction hash) may have got there first; nothing then changes.
  await db.batch([
    db
      .prepare(`update orders set status = ?, updated_at = ? where chain_id = ? and order_hash = ? and status in ('active', 'inactive', 'expired')`)
      .bind(end, nowMs, chainId, orderHash),
    refreshBestListingsWhere(db, "chain_id = ? and order_hash = ?", [chainId, orderHash], nowMs),
  ]);
}

/**
 * A listing stored with no signature whose validation on chain is gone (decision 103): nothing
 * can fill it, so it stops being a best listing. `inactive`, not an end: should the offerer
 * validate it again, a hint brings it back as any inactive listing (revival checks it again).
 */
export async function recordValidationLost(db: D1Database, chainId: number, orderHash: string, nowMs = Date.now()): Promise<void> {
  await db.batch([
    db.prepare(`update orders set status = 'inactive', updated_at = ? where chain_id = ? and order_hash = ? and status = 'active'`).bind(nowMs, chainId, orderHash),
    refreshBestListingsWhere(db, "chain_id = ? and order_hash = ?", [chainId, orderHash], nowMs),
  ]);
}
