// Time-based housekeeping that needs no chain log: listings past their end time leave `active`
// or `inactive` (reads already hide them; the sweep keeps best-listing sorts and filters honest), listings
// whose start time has come count for their token's best listing (decision 45), and
// idempotency records past their 24 h and dashboard key-display nonces past their 60 s are deleted.
import { IN_R2_PATTERN } from "../idempotency-body";
import { refreshBestListingsWhere, STARTING_ORDERS_INDEX } from "../orders/best-listing";

export async function sweepExpired(db: D1Database, nowMs: number): Promise<void> {
  await db.batch([
    // First the tokens of the orders about to expire: their best listing already leaves out an
    // order past its end time, and `status = 'active' and end_time <= now` is a short range of
    // orders_status_end_idx, where the expired orders, once marked, would be a walk through every
    // order that ever expired (decision 34).
    refreshBestListingsWhere(db, "status = 'active' and end_time <= ?", [nowMs], nowMs),
    db.prepare("update orders set status = 'expired', updated_at = ?1 where status = 'active' and end_time <= ?1").bind(nowMs),
    // An inactive listing past its end can never fill again, whatever comes back: it says so too.
    // (No best listing to refresh: an inactive order is never one.)
    db.prepare("update orders set status = 'expired', updated_at = ?1 where status = 'inactive' and end_time <= ?1").bind(nowMs),
    // The same two steps for listings that were submitted before their start time and have started.
    refreshBestListingsWhere(db, "start_pending = 1 and start_time <= ?", [nowMs], nowMs, STARTING_ORDERS_INDEX),
    db.prepare("update orders set start_pending = 0 where start_pending = 1 and start_time <= ?").bind(nowMs),
    // Records whose body is in R2 go with their object (services/idempotency.ts).
    db.prepare("delete from idempotency_keys where expires_at <= ? and coalesce(response_body, '') not like ?").bind(nowMs, IN_R2_PATTERN),
    // Flashes of created keys never rendered (decision 121).
    db.prepare("delete from dashboard_key_displays where expires_at <= ?").bind(nowMs),
  ]);
}
