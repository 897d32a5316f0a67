// What chain logs do to listings: orders leave `active` when their offerer can no longer deliver,
// and every change is followed, in the same batch, by a recompute of the affected tokens' best
// listing. All statements carry the log's guard (see guard.ts).
import { ordersTable, refreshBestListingsWhere } from "../orders/best-listing";
import { GUARD_SQL, guardParams, type LogGuard } from "./guard";

/** The address that moves an order's token; bind the chain's Seaport, which orders from before migration 0014 mean. */
export const ORDER_OPERATOR_SQL = "coalesce(operator, ?)";

/** `active` orders matching `where` (SQL over `orders`, on `index` when given) → `inactive`. */
export function deactivateOrdersStatement(db: D1Database, guard: LogGuard, where: string, params: unknown[], nowMs: number, index?: string): D1PreparedStatement {
  return db
    .prepare(`update ${ordersTable(index)} set status = 'inactive', updated_at = ? where status = 'active' and ${where} and ${GUARD_SQL}`)
    .bind(nowMs, ...params, ...guardParams(guard));
}

/** Recomputes the best listing of every token that has an order matching `where`. */
export function refreshListingsStatement(db: D1Database, guard: LogGuard, where: string, params: unknown[], nowMs: number, index?: string): D1PreparedStatement {
  return refreshBestListingsWhere(db, `${where} and ${GUARD_SQL}`, [...params, ...guardParams(guard)], nowMs, index);
}
