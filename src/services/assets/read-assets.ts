import { and, asc, count, desc, eq, gte, inArray, isNotNull, isNull, lt, sql, type Column, type SQL } from "drizzle-orm";
import { byValueOnly } from "../../db/by-value-only";
import { inJsonList } from "../../db/json-list";
import { assets, ownerships } from "../../db/schema";
import { notFound } from "../../lib/errors";
import type { Asset } from "../../schemas/resources";
import type { ServiceContext } from "../context";
import { ERC20_CLASS } from "../orders/price-sort";
import { assetView, selectAssetsWithRelations } from "./asset-view";

export type AssetSort = "createdAt:DESC" | "createdAt:ASC" | "price:ASC" | "price:DESC";

export interface ExploreQuery {
  chainId?: number;
  contractAddress?: string;
  ownerAddress?: string;
  search?: string;
  isVerified?: boolean;
  hasListings?: boolean;
  page: number;
  limit: number;
  sortBy: AssetSort;
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (char) => `\\${char}`);

/** The trigram index (migration 0005) answers terms of 3+ characters; shorter ones scan with LIKE. */
const TRIGRAM = 3;

/** Substring match on the lower-cased name. */
function nameContains(term: string): SQL {
  if ([...term].length < TRIGRAM) return sql`${assets.nameLower} like ${`%${escapeLike(term)}%`} escape '\\'`;
  // An FTS5 string in double quotes (quotes doubled) is one phrase: no operators, no syntax errors.
  const phrase = `"${term.replaceAll('"', '""')}"`;
  return sql`${assets.id} in (select asset_id from assets_search where assets_search match ${phrase})`;
}

/** Unlisted, by value: on assets_best_price_idx `is null` is an equality over most of the table, then sorted. */
const unlistedByValue = sql`${byValueOnly(assets.bestPriceSort)} is null`;

/** A contract, an owner or a name search of 3+ characters: few rows, each with its own index. */
const hasNarrowFilter = (query: ExploreQuery) =>
  query.contractAddress !== undefined || query.ownerAddress !== undefined || (query.search !== undefined && [...query.search].length >= TRIGRAM);

/**
 * Listed or not. Unlisted is tested by value wherever another index drives the lookup (a page
 * walking an order index, a narrow filter); only a count with broad filters counts it on
 * assets_best_price_idx.
 */
function listingCondition(hasListings: boolean | undefined, byValue: boolean): SQL | undefined {
  if (hasListings === undefined) return undefined;
  if (hasListings) return isNotNull(assets.bestPriceSort);
  return byValue ? unlistedByValue : isNull(assets.bestPriceSort);
}

/** `forPage`: the conditions for a page, which walks an order index; a count may still use the listing index. */
function whereOf(query: ExploreQuery, forPage = false): SQL | undefined {
  const narrow = hasNarrowFilter(query);
  // Beside a narrow filter, `chain_id = ?` drove the chain's index and walked its assets in order
  // (up to 200,000 rows for a 20-row page): broad terms compare by value only (decision 34).
  const broad = (column: Column) => (narrow ? byValueOnly(column) : sql`${column}`);
  const conditions: (SQL | undefined)[] = [
    query.chainId === undefined ? undefined : sql`${broad(assets.chainId)} = ${query.chainId}`,
    query.contractAddress === undefined ? undefined : eq(assets.contractAddress, query.contractAddress),
    query.isVerified === undefined ? undefined : sql`${broad(assets.isVerified)} = ${query.isVerified ? 1 : 0}`,
    listingCondition(query.hasListings, forPage || narrow),
    query.search === undefined ? undefined : nameContains(query.search.toLowerCase()),
    query.ownerAddress === undefined
      ? undefined
      : sql`(${assets.chainId}, ${assets.contractAddress}, ${assets.tokenId}) in (
          select ${ownerships.chainId}, ${ownerships.contractAddress}, ${ownerships.tokenId}
          from ${ownerships}
          where ${ownerships.ownerAddress} = ${query.ownerAddress} and ${ownerships.balance} != '0')`,
  ];
  const present = conditions.filter((condition): condition is SQL => condition !== undefined);
  return present.length ? and(...present) : undefined;
}

/** A slice of the result: rows matching `where`, in `order`. A page runs through them in turn. */
interface Range {
  where: SQL | undefined;
  order: SQL[];
}

const newestFirst = [desc(assets.createdAt), desc(assets.id)];
const byPrice = (direction: typeof asc) => [direction(assets.bestPriceSort), ...newestFirst];

/**
 * How a sort splits into index-served ranges. Price keys start with the currency class
 * (services/orders/price-sort.ts), so ascending keys already run native prices, then token
 * prices; descending, native prices come first too (the class is not a price) and unlisted
 * assets come last in both directions. One ORDER BY with those terms as expressions would sort
 * the whole table on every page; as ranges each runs on its own index (decision 27).
 */
function rangesOf(query: ExploreQuery, where: SQL | undefined): Range[] {
  const unlisted = { where: and(where, unlistedByValue), order: newestFirst };
  if (query.sortBy === "createdAt:ASC") return [{ where, order: [asc(assets.createdAt), asc(assets.id)] }];
  if (query.sortBy === "createdAt:DESC" || query.hasListings === false) return [{ where, order: newestFirst }];
  const listed: Range[] =
    query.sortBy === "price:ASC"
      ? [{ where: query.hasListings === true ? where : and(where, isNotNull(assets.bestPriceSort)), order: byPrice(asc) }]
      : [
          { where: and(where, lt(assets.bestPriceSort, ERC20_CLASS)), order: byPrice(desc) },
          { where: and(where, gte(assets.bestPriceSort, ERC20_CLASS)), order: byPrice(desc) },
        ];
  return query.hasListings === true ? listed : [...listed, unlisted];
}

export async function exploreAssets(ctx: ServiceContext, query: ExploreQuery): Promise<{ data: Asset[]; total: number }> {
  const { db } = ctx;
  const where = whereOf(query);
  const offset = (query.page - 1) * query.limit;
  const ranges = rangesOf(query, whereOf(query, true));
  // Not db.batch: D1 batches return rows keyed by column name, which collide across the joined
  // tables (chain_id, contract_address…); plain queries come back positionally.
  const [totalRows, rows] = await Promise.all([
    db.select({ total: count() }).from(assets).where(where),
    ranges.length === 1 ? pageInOneQuery(ctx, ranges[0]!, query.limit, offset) : pageAcross(ctx, ranges, query.limit, offset),
  ]);
  return { data: rows.map(assetView), total: totalRows[0]?.total ?? 0 };
}

/**
 * One range (every sort but the price sorts without hasListings=true): the page's ids come from
 * the indexes alone in a subquery and the joins run for those rows only, in one D1 round trip.
 */
function pageInOneQuery({ db }: ServiceContext, range: Range, limit: number, offset: number) {
  const ids = db.select({ id: assets.id }).from(assets).where(range.where).orderBy(...range.order).limit(limit).offset(offset);
  return selectAssetsWithRelations(db).where(inArray(assets.id, ids)).orderBy(...range.order).all();
}

/** Several ranges: the ids first (pageIdsAcross), then the joins for them, in the ids' order. */
async function pageAcross(ctx: ServiceContext, ranges: Range[], limit: number, offset: number) {
  const ids = await pageIdsAcross(ctx, ranges, limit, offset);
  const rows = ids.length ? await selectAssetsWithRelations(ctx.db).where(inJsonList(assets.id, ids)).all() : [];
  const position = new Map(ids.map((id, index) => [id, index]));
  return rows.sort((a, b) => position.get(a.asset.id)! - position.get(b.asset.id)!);
}

async function pageIds({ db }: ServiceContext, range: Range, limit: number, offset: number): Promise<string[]> {
  const rows = await db.select({ id: assets.id }).from(assets).where(range.where).orderBy(...range.order).limit(limit).offset(offset).all();
  return rows.map((row) => row.id);
}

/**
 * One page over consecutive ranges. A range that fills the page ends it with one query; one that
 * runs out part-way tells its size by how many rows it gave; only a range the page starts beyond
 * has to be counted.
 */
async function pageIdsAcross(ctx: ServiceContext, ranges: Range[], limit: number, offset: number): Promise<string[]> {
  const ids: string[] = [];
  let skip = offset;
  for (const range of ranges) {
    const wanted = limit - ids.length;
    const rows = await pageIds(ctx, range, wanted, skip);
    ids.push(...rows);
    if (rows.length === wanted || range === ranges.at(-1)) break;
    const size = rows.length > 0 ? skip + rows.length : ((await ctx.db.select({ n: count() }).from(assets).where(range.where).get())?.n ?? 0);
    skip = Math.max(0, skip - size);
  }
  return ids;
}

export async function getAsset({ db }: ServiceContext, chainId: number, contractAddress: string, tokenId: string): Promise<Asset> {
  const row = await selectAssetsWithRelations(db)
    .where(and(eq(assets.chainId, chainId), eq(assets.contractAddress, contractAddress), eq(assets.tokenId, tokenId)))
    .get();
  if (!row) throw notFound("asset");
  return assetView(row);
}
