// A collection's, a token's or an offerer's orders, cheapest first (decision 106): the asks a
// marketplace shows beside a token, on orders_contract_status_price_idx,
// orders_token_status_price_idx or orders_offerer_idx, each covering its list (decision 107).
import { and, asc, count, desc, eq, gte, inArray, lt, sql, type SQL } from "drizzle-orm";
import { orders } from "../../db/schema";
import type { ServiceContext } from "../context";
import { orderView, type OrderView } from "./order-view";
import { ERC20_CLASS } from "./price-sort";

type OrderStatus = (typeof orders.$inferSelect)["status"];

export interface OrderListQuery {
  chainId: number;
  /** At least one of contractAddress and offerer (the route checks); lower-case. */
  contractAddress?: string;
  tokenId?: string;
  offerer?: string;
  status: OrderStatus;
  sortBy: "price:ASC" | "price:DESC";
  page: number;
  limit: number;
}

// `+end_time`: the range is checked on the list index's own entries, never searched on an index
// of its own. SQLite without statistics rates `status = ? and end_time > ?` on
// orders_status_end_idx above the collection's, token's or offerer's equalities and would walk
// every active order of every collection (decision 34).
const endsAfter = (now: Date) => sql`+${orders.endTime} > ${now.getTime()}`;

/**
 * `active` leaves out an active order past its end time, as its own read shows it expired
 * (decision 33). `expired` is what the sweep recorded (every minute): adding the lapsed active
 * orders would take an OR no index serves, and a read of every order the collection ever had.
 */
function statusIs(status: OrderStatus, now: Date): SQL | undefined {
  return status === "active" ? and(eq(orders.status, "active"), endsAfter(now)) : eq(orders.status, status);
}

// With an offerer, its index: the collection's would also serve the sort, and SQLite may pick it,
// walking a 40,000-order collection for a wallet's two listings in it; the `+` keeps the
// offerer's index whatever the planner rates (decision 107). A token's own
// index is as narrow as the offerer's (an offerer's orders on one token read that token's rows).
const contractIs = (query: OrderListQuery, contractAddress: string) =>
  query.offerer !== undefined && query.tokenId === undefined ? sql`+${orders.contractAddress} = ${contractAddress}` : eq(orders.contractAddress, contractAddress);

function whereOf(query: OrderListQuery, now: Date): SQL | undefined {
  return and(
    eq(orders.chainId, query.chainId),
    query.contractAddress === undefined ? undefined : contractIs(query, query.contractAddress),
    query.tokenId === undefined ? undefined : eq(orders.tokenId, query.tokenId),
    query.offerer === undefined ? undefined : eq(orders.offerer, query.offerer),
    statusIs(query.status, now),
  );
}

/**
 * The page's ids from the index alone (it holds the sort, its tie-break and every filtered
 * column), then those rows: skipped rows never leave the index, and their stored parameters are
 * never read. Equal prices go by order hash in the sort's direction, so a descending list is the
 * ascending one reversed, and both are one index range.
 */
function page({ db }: ServiceContext, where: SQL | undefined, direction: typeof asc, limit: number, offset: number) {
  const ordering = [direction(orders.priceSort), direction(orders.orderHash)];
  const ids = db.select({ orderHash: orders.orderHash }).from(orders).where(where).orderBy(...ordering).limit(limit).offset(offset);
  return db.select().from(orders).where(inArray(orders.orderHash, ids)).orderBy(...ordering);
}

export async function listOrders(ctx: ServiceContext, query: OrderListQuery): Promise<{ data: OrderView[]; total: number }> {
  const { db } = ctx;
  const where = whereOf(query, new Date());
  const offset = (query.page - 1) * query.limit;
  if (query.sortBy === "price:ASC") {
    // Price keys start with the currency class: ascending runs native prices, then token prices.
    const [totals, rows] = await db.batch([db.select({ total: count() }).from(orders).where(where), page(ctx, where, asc, query.limit, offset)]);
    return { data: rows.map(orderView), total: totals[0]?.total ?? 0 };
  }
  // Descending, native prices still come first (a token amount is no price in the native
  // currency): two ranges, each on the index, the second one paged past the first's rows.
  const native = and(where, lt(orders.priceSort, ERC20_CLASS));
  const token = and(where, gte(orders.priceSort, ERC20_CLASS));
  const [nativeTotals, tokenTotals] = await db.batch([db.select({ total: count() }).from(orders).where(native), db.select({ total: count() }).from(orders).where(token)]);
  const nativeTotal = nativeTotals[0]?.total ?? 0;
  const rows = offset < nativeTotal ? await page(ctx, native, desc, query.limit, offset) : [];
  if (rows.length < query.limit) rows.push(...(await page(ctx, token, desc, query.limit - rows.length, Math.max(0, offset - nativeTotal))));
  return { data: rows.map(orderView), total: nativeTotal + (tokenTotals[0]?.total ?? 0) };
}
