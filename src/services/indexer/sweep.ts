// Time-based housekeeping that needs no chain log: listings past their end time leave `active`
// (reads already hide them; the sweep keeps best-listing sorts and filters honest), and
// idempotency records past their 24 h are deleted.
import { refreshBestListingsWhere } from "../orders/best-listing";

export async function sweepExpired(db: D1Database, nowMs: number): Promise<void> {
  await db.batch([
    db.prepare("update orders set status = 'expired', updated_at = ?1 where status = 'active' and end_time <= ?1").bind(nowMs),
    // updated_at = now marks exactly the orders the statement above just expired.
    refreshBestListingsWhere(db, "status = 'expired' and updated_at = ?", [nowMs], nowMs),
    db.prepare("delete from idempotency_keys where expires_at <= ?").bind(nowMs),
  ]);
}
