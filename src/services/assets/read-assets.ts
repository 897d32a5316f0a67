import { and, asc, count, desc, eq, inArray, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import { assets, ownerships } from "../../db/schema";
import { notFound } from "../../lib/errors";
import type { Asset } from "../../schemas/resources";
import type { ServiceContext } from "../context";
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

function whereOf(query: ExploreQuery): SQL | undefined {
  const conditions: (SQL | undefined)[] = [
    query.chainId === undefined ? undefined : eq(assets.chainId, query.chainId),
    query.contractAddress === undefined ? undefined : eq(assets.contractAddress, query.contractAddress),
    query.isVerified === undefined ? undefined : eq(assets.isVerified, query.isVerified),
    query.hasListings === undefined ? undefined : query.hasListings ? isNotNull(assets.bestPriceSort) : isNull(assets.bestPriceSort),
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

function orderOf(sort: AssetSort, onlyListed: boolean): SQL[] {
  switch (sort) {
    case "createdAt:ASC":
      return [asc(assets.createdAt), asc(assets.id)];
    case "createdAt:DESC":
      return [desc(assets.createdAt), desc(assets.id)];
    // Unlisted assets (NULL price) come after listed ones in both directions.
    case "price:ASC":
      // With only listed assets the "unlisted last" term is constant; dropping it lets the price
      // index serve the sort.
      return onlyListed
        ? [asc(assets.bestPriceSort), desc(assets.createdAt), desc(assets.id)]
        : [sql`${assets.bestPriceSort} is null`, asc(assets.bestPriceSort), desc(assets.createdAt), desc(assets.id)];
    case "price:DESC":
      return [desc(assets.bestPriceSort), desc(assets.createdAt), desc(assets.id)];
  }
}

export async function exploreAssets(ctx: ServiceContext, query: ExploreQuery): Promise<{ data: Asset[]; total: number }> {
  const { db } = ctx;
  const where = whereOf(query);
  const offset = (query.page - 1) * query.limit;
  // Not db.batch: D1 batches return rows keyed by column name, which collide across the joined
  // tables (chain_id, contract_address…); plain queries come back positionally.
  const [totalRows, ids] = await Promise.all([
    db.select({ total: count() }).from(assets).where(where),
    query.sortBy === "price:ASC" && query.hasListings !== true
      ? listedFirstPageIds(ctx, where, query.limit, offset)
      : pageIds(ctx, where, orderOf(query.sortBy, query.hasListings === true), query.limit, offset),
  ]);
  // The page's ids come from the indexes alone; the joins run for those rows only.
  const rows = ids.length ? await selectAssetsWithRelations(db).where(inArray(assets.id, ids)).all() : [];
  const position = new Map(ids.map((id, index) => [id, index]));
  rows.sort((a, b) => position.get(a.asset.id)! - position.get(b.asset.id)!);
  return { data: rows.map(assetView), total: totalRows[0]?.total ?? 0 };
}

async function pageIds({ db }: ServiceContext, where: SQL | undefined, order: SQL[], limit: number, offset: number): Promise<string[]> {
  const rows = await db.select({ id: assets.id }).from(assets).where(where).orderBy(...order).limit(limit).offset(offset).all();
  return rows.map((row) => row.id);
}

/**
 * price:ASC over everything: listed assets by price, then unlisted ones by age. As one ORDER BY
 * ("price is null" first) no index serves it and every page sorts the whole table; as two
 * ranges each runs on its own index and the page continues across the boundary.
 */
async function listedFirstPageIds(ctx: ServiceContext, where: SQL | undefined, limit: number, offset: number): Promise<string[]> {
  const listed = and(where, isNotNull(assets.bestPriceSort));
  const unlisted = and(where, isNull(assets.bestPriceSort));
  const listedCount = (await ctx.db.select({ n: count() }).from(assets).where(listed).get())?.n ?? 0;
  const fromListed = offset < listedCount ? await pageIds(ctx, listed, orderOf("price:ASC", true), limit, offset) : [];
  if (fromListed.length === limit) return fromListed;
  const unlistedOffset = Math.max(0, offset - listedCount);
  return fromListed.concat(await pageIds(ctx, unlisted, orderOf("createdAt:DESC", false), limit - fromListed.length, unlistedOffset));
}

export async function getAsset({ db }: ServiceContext, chainId: number, contractAddress: string, tokenId: string): Promise<Asset> {
  const row = await selectAssetsWithRelations(db)
    .where(and(eq(assets.chainId, chainId), eq(assets.contractAddress, contractAddress), eq(assets.tokenId, tokenId)))
    .get();
  if (!row) throw notFound("asset");
  return assetView(row);
}
