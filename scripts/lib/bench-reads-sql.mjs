// The SQL the asset reads run, written out by hand from src/services/assets/read-assets.ts and
// asset-view.ts (what drizzle generates for them: same columns, joins, conditions, order and
// placeholders), so the benchmark can run it straight on SQLite as the floor. If those files
// change, change this too: the benchmark checks each case's first page and total against the
// service and reports any difference.
const ASSET_COLUMNS = ["id", "chain_id", "contract_address", "token_id", "collection_id", "schema", "name", "name_lower", "description", "image_url", "animation_url", "token_uri", "is_verified", "best_price_sort", "best_order_hash", "created_at", "updated_at"];
const COLLECTION_COLUMNS = ["id", "slug", "chain_id", "contract_address", "name", "image_url", "description", "is_verified"];
const ORDER_COLUMNS = ["order_hash", "unit_price", "price_symbol", "quantity", "offerer"];

/** Where a row of the joined page holds the listing's order hash (null without a listing). */
export const ORDER_HASH_COLUMN = ASSET_COLUMNS.length + COLLECTION_COLUMNS.length;

const columns = (table, names) => names.map((name) => `"${table}"."${name}"`);
const SELECT_WITH_RELATIONS =
  `select ${[...columns("assets", ASSET_COLUMNS), ...columns("collections", COLLECTION_COLUMNS), ...columns("orders", ORDER_COLUMNS)].join(", ")} ` +
  `from "assets" left join "collections" on "collections"."id" = "assets"."collection_id" ` +
  // asset-view.ts liveBestOrderHash(): the recorded best listing while live, else the next live one.
  `left join "orders" on "orders"."order_hash" = (case
    when "assets"."best_order_hash" is null then null
    when exists (select 1 from orders b where b.order_hash = "assets"."best_order_hash" and b.status = 'active' and b.start_time <= ? and b.end_time > ?)
      then "assets"."best_order_hash"
    else (select n.order_hash from orders n indexed by orders_token_status_price_idx
          where n.chain_id = "assets"."chain_id" and n.contract_address = "assets"."contract_address" and n.token_id = "assets"."token_id"
            and n.status = 'active' and n.start_time <= ? and n.end_time > ?
          order by n.price_sort asc, n.created_at asc limit 1)
  end)`;

const ORDER_BY = {
  "createdAt:DESC": `"assets"."created_at" desc, "assets"."id" desc`,
  "createdAt:ASC": `"assets"."created_at" asc, "assets"."id" asc`,
  "price:ASC": `"assets"."best_price_sort" is null, "assets"."best_price_sort" asc, "assets"."created_at" desc, "assets"."id" desc`,
  "price:DESC": `"assets"."best_price_sort" desc, "assets"."created_at" desc, "assets"."id" desc`,
};
// Price keys start with the currency class (src/services/orders/price-sort.ts): '0' native, '1' ERC20.
const ERC20_CLASS = "1";
// read-assets.ts: with hasListings=true the service drops the constant "unlisted last" term.
const orderBy = (query) =>
  query.sortBy === "price:ASC" && query.hasListings === true
    ? `"assets"."best_price_sort" asc, "assets"."created_at" desc, "assets"."id" desc`
    : ORDER_BY[query.sortBy];

const escapeLike = (value) => value.replace(/[\\%_]/g, (char) => `\\${char}`);

/** whereOf() of read-assets.ts: the same conditions in the same order. */
function where(query) {
  const parts = [];
  const params = [];
  const add = (sql, ...values) => (parts.push(sql), params.push(...values));
  // Beside a narrow filter the broad ones are compared by value only (`+column`, decision 34).
  // (hasListings=false, in no case here, also changes: read-assets.ts whereOf().)
  const narrow = query.contractAddress !== undefined || query.ownerAddress !== undefined || (query.search !== undefined && [...query.search].length >= 3);
  const broad = (column) => (narrow ? `+"assets"."${column}"` : `"assets"."${column}"`);
  if (query.chainId !== undefined) add(`${broad("chain_id")} = ?`, query.chainId);
  if (query.contractAddress !== undefined) add(`"assets"."contract_address" = ?`, query.contractAddress);
  if (query.isVerified !== undefined) add(`${broad("is_verified")} = ?`, query.isVerified ? 1 : 0);
  if (query.hasListings !== undefined) add(`"assets"."best_price_sort" is ${query.hasListings ? "not null" : "null"}`);
  if (query.search !== undefined) {
    // nameContains(): 3+ characters through the trigram index as one quoted phrase, else LIKE.
    const term = query.search.toLowerCase();
    if ([...term].length >= 3) add(`"assets"."id" in (select asset_id from assets_search where assets_search match ?)`, `"${term.replaceAll('"', '""')}"`);
    else add(`"assets"."name_lower" like ? escape '\\'`, `%${escapeLike(term)}%`);
  }
  if (query.ownerAddress !== undefined) {
    add(
      `("assets"."chain_id", "assets"."contract_address", "assets"."token_id") in (select "ownerships"."chain_id", "ownerships"."contract_address", "ownerships"."token_id" from "ownerships" where "ownerships"."owner_address" = ? and "ownerships"."balance" != '0')`,
      query.ownerAddress,
    );
  }
  if (!parts.length) return { sql: "", params };
  return { sql: ` where ${parts.length === 1 ? parts[0] : `(${parts.join(" and ")})`}`, params };
}

/**
 * exploreAssets(): a count and a page, which the service sends to D1 as two parallel queries;
 * the page selects its ids from the indexes first and joins only those rows. Price sorts page
 * through ranges (rangesOf(), pageIdsAcross()): price:ASC without hasListings=true pages the
 * listed assets on the price index, price:DESC the native-priced ones first. The benchmark's
 * pages lie within that first range (its listings are all native; the first-page check against
 * the service would report otherwise) and fill from it, so no range is counted and the later
 * ranges are not part of the floor.
 */
export function exploreSql(query, now = Date.now()) {
  const w = where(query);
  const total = { sql: `select count(*) from "assets"${w.sql}`, params: w.params };
  const firstRange = (extraSql, extraParams) => {
    const sql = w.sql ? `${w.sql} and ${extraSql}` : ` where ${extraSql}`;
    return { sql, params: [...w.params, ...extraParams] };
  };
  if (query.sortBy === "price:DESC" && query.hasListings !== false) {
    const native = firstRange(`"assets"."best_price_sort" < ?`, [ERC20_CLASS]);
    return [total, pageSql(native.sql, native.params, ORDER_BY["price:DESC"], query, now)];
  }
  if (query.sortBy !== "price:ASC" || query.hasListings !== undefined) return [total, pageSql(w.sql, w.params, orderBy(query), query, now)];
  const listed = where({ ...query, hasListings: true });
  return [total, pageSql(listed.sql, listed.params, orderBy({ ...query, hasListings: true }), query, now)];
}

/**
 * The page query for a where clause and an order: ids from the indexes (drizzle leaves out
 * `offset` when it is 0), then the joins for those rows only. The what-if experiments reuse it.
 */
export function pageSql(whereSql, whereParams, order, { page, limit }, now = Date.now()) {
  const offset = (page - 1) * limit;
  return {
    sql: `${SELECT_WITH_RELATIONS} where "assets"."id" in (select "id" from "assets"${whereSql} order by ${order} limit ?${offset ? " offset ?" : ""}) order by ${order}`,
    params: [now, now, now, now, ...whereParams, limit, ...(offset ? [offset] : [])],
  };
}

/** getAsset(): one lookup on the unique (chain, contract, token) index, joined the same way. */
export function assetSql({ chainId, contractAddress, tokenId }, now = Date.now()) {
  return [
    {
      sql: `${SELECT_WITH_RELATIONS} where ("assets"."chain_id" = ? and "assets"."contract_address" = ? and "assets"."token_id" = ?)`,
      params: [now, now, now, now, chainId, contractAddress, tokenId],
    },
  ];
}
