import { and, eq, gte, lt, sql } from "drizzle-orm";
import { inJsonList } from "../../db/json-list";
import { collections, sales } from "../../db/schema";
import { COLLECTION_ORDERS_INDEX, liveOrder } from "../orders/best-listing";
import type { Collection } from "../../schemas/resources";
import type { ServiceContext } from "../context";
import { collectionView } from "../views";

export const TRENDING_PERIODS = { "1h": 3_600_000, "24h": 86_400_000, "7d": 604_800_000, "30d": 2_592_000_000 } as const;
export type TrendingPeriod = keyof typeof TRENDING_PERIODS;

export interface TrendingEntry {
  collection: Collection;
  volume: string;
  sales: number;
  floorPrice: string | null;
  change: number | null;
}

const GWEI = 1_000_000_000n;

/** Sales store prices split at 10^9 so SQLite sums them exactly; this joins the parts again. */
const volumeOf = (gwei: number | bigint | null, subGwei: number | bigint | null) =>
  BigInt(gwei ?? 0) * GWEI + BigInt(subGwei ?? 0);

/** Volume is in the chain's native currency; sales in ERC20 currencies count as sales only. */
const nativeGwei = sql<number>`coalesce(sum(case when ${sales.currencyAddress} is null then ${sales.priceGwei} end), 0)`;
const nativeSubGwei = sql<number>`coalesce(sum(case when ${sales.currencyAddress} is null then ${sales.priceSubGwei} end), 0)`;

/**
 * A collection's cheapest live listing in the native currency, as its price sort key. Native keys
 * sort before token ones (price-sort.ts), so the walk down the collection's price index stops at
 * the first live (active, started, unexpired) native order: one index step per collection however
 * many listings it has, where a min() over a join read every active order of the chain (decision 34).
 * The outer columns are spelled out: drizzle leaves the columns of a single-table select
 * unqualified, and inside the subquery an unqualified chain_id would be the order's own.
 */
const nativeFloor = (now: number) =>
  sql<string | null>`(select o.price_sort from orders o indexed by ${sql.raw(COLLECTION_ORDERS_INDEX)}
    where o.chain_id = "collections"."chain_id" and o.contract_address = "collections"."contract_address"
      and ${liveOrder("o", now)} and o.currency_address is null
    order by o.price_sort limit 1)`.as("floor");

export async function trendingCollections(
  { db }: ServiceContext,
  options: { chainId: number; period: TrendingPeriod; limit: number; now?: number },
): Promise<TrendingEntry[]> {
  const now = options.now ?? Date.now();
  const span = TRENDING_PERIODS[options.period];
  const inChain = eq(sales.chainId, options.chainId);

  const current = await db
    .select({ collectionId: sales.collectionId, gwei: nativeGwei, subGwei: nativeSubGwei, sales: sql<number>`count(*)` })
    .from(sales)
    .where(and(inChain, gte(sales.soldAt, new Date(now - span)), lt(sales.soldAt, new Date(now))))
    .groupBy(sales.collectionId)
    .all();
  if (!current.length) return [];

  // Every collection that sold in the period: can be far more than D1's 100 bound parameters.
  const ids = current.map((row) => row.collectionId);
  const [previous, collectionRows, floors] = await db.batch([
    db
      .select({ collectionId: sales.collectionId, gwei: nativeGwei, subGwei: nativeSubGwei })
      .from(sales)
      .where(and(inJsonList(sales.collectionId, ids), gte(sales.soldAt, new Date(now - 2 * span)), lt(sales.soldAt, new Date(now - span))))
      .groupBy(sales.collectionId),
    db.select().from(collections).where(inJsonList(collections.id, ids)),
    db.select({ collectionId: collections.id, floor: nativeFloor(now) }).from(collections).where(inJsonList(collections.id, ids)),
  ]);

  const previousVolume = new Map(previous.map((row) => [row.collectionId, volumeOf(row.gwei, row.subGwei)]));
  const floorByCollection = new Map(floors.flatMap((row) => (row.floor === null ? [] : [[row.collectionId, BigInt(row.floor).toString()] as const])));
  const collectionById = new Map(collectionRows.map((row) => [row.id, row]));

  const entries = current.flatMap((row) => {
    const collection = collectionById.get(row.collectionId);
    if (!collection) return [];
    const volume = volumeOf(row.gwei, row.subGwei);
    const before = previousVolume.get(row.collectionId) ?? 0n;
    return [
      {
        row: collection,
        volume,
        entry: {
          collection: collectionView(collection),
          volume: volume.toString(),
          sales: Number(row.sales),
          floorPrice: floorByCollection.get(collection.id) ?? null,
          // Fractional change versus the previous period (0.5 = +50 %); null without a baseline.
          change: before === 0n ? null : Number(((volume - before) * 1_000_000n) / before) / 1_000_000,
        },
      },
    ];
  });

  entries.sort(
    (a, b) =>
      (a.volume === b.volume ? 0 : a.volume > b.volume ? -1 : 1) ||
      b.entry.sales - a.entry.sales ||
      a.row.slug.localeCompare(b.row.slug),
  );
  return entries.slice(0, options.limit).map(({ entry }) => entry);
}
