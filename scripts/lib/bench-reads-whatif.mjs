// "What if": candidate fixes for the slow explore cases, timed on a copy of the benchmark
// database next to the SQL the service runs today, so the recommendations in
// docs/benchmarks.md carry numbers from the same run. Only the copy gets the extra indexes.
import { copyFileSync, rmSync } from "node:fs";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { SEARCH_TERMS } from "./bench-reads-data.mjs";
import { stats } from "./bench-reads-load.mjs";
import { exploreSql } from "./bench-reads-sql.mjs";

const RUNS = 20;

export function runWhatIf(sqliteFile, copyPath, size, log = () => {}) {
  copyFileSync(sqliteFile, copyPath);
  const db = new Database(copyPath);
  try {
    return experiments(db, size, log);
  } finally {
    db.close();
    rmSync(copyPath, { force: true });
  }
}

function experiments(db, size, log) {
  const now = Date.now();
  const time = (sql, params) => {
    const statement = db.prepare(sql);
    const run = /^select count/.test(sql) ? () => statement.pluck().get(params()) : () => statement.raw().all(params());
    run();
    const samples = [];
    let result;
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      result = run();
      samples.push(performance.now() - t0);
    }
    return { ...stats(samples), result };
  };
  const ids = (rows) => rows.map((row) => row[0]).join();
  const rows = [];
  // `same`: the candidate returns exactly the rows of today's query (checked on page 1).
  const compare = (name, change, before, after, same = null) => {
    rows.push({ name, change, before, after, same });
    log(`${name}: p50 ${before.p50.toFixed(2)} → ${after.p50.toFixed(2)} ms`);
  };
  const join = ["active", now];
  const [, plain] = exploreSql({ page: 1, limit: 20, sortBy: "createdAt:DESC" }, now);
  const select = plain.sql.slice(0, plain.sql.indexOf(" order by "));
  const dropIsNull = (sql) => sql.replace(`order by "assets"."best_price_sort" is null, `, "order by ");

  // price:ASC orders by `best_price_sort is null` first, which no index can serve: every page
  // sorts the whole table. Listed rows first (the price index), then unlisted ones by created_at
  // (`+` keeps SQLite off the price index for IS NULL), at offset - listed count.
  const [, priceAsc] = exploreSql({ page: 1, limit: 20, sortBy: "price:ASC" }, now);
  const priceNow = time(priceAsc.sql, () => priceAsc.params);
  const listed = time(`${select} where "assets"."best_price_sort" is not null order by "assets"."best_price_sort" asc, "assets"."created_at" desc, "assets"."id" desc limit ? offset ?`, () => [...join, 20, 0]);
  compare("price:ASC, page 1", "listed rows by the price index, then unlisted rows by created_at", priceNow, listed, ids(priceNow.result) === ids(listed.result));
  const unlisted = time(`${select} where +"assets"."best_price_sort" is null order by "assets"."created_at" desc, "assets"."id" desc limit ? offset ?`, () => [...join, 20, 0]);
  compare("price:ASC, first page of the unlisted part", "same split, the unlisted part (`+best_price_sort is null`, created_at index)", priceNow, unlisted);

  // With hasListings=true every row is listed: the `is null` term is constant and only costs.
  const combinedQuery = { page: 1, limit: 20, sortBy: "price:ASC", chainId: 1868, isVerified: true, hasListings: true };
  const [combinedCount, combinedPage] = exploreSql(combinedQuery, now);
  const combinedNow = time(combinedPage.sql, () => combinedPage.params);
  const combinedFix = time(dropIsNull(combinedPage.sql), () => combinedPage.params);
  compare("chainId + isVerified + hasListings, price:ASC: page", "drop the `is null` order term when hasListings=true", combinedNow, combinedFix, ids(combinedNow.result) === ids(combinedFix.result));
  const countNow = time(combinedCount.sql, () => combinedCount.params);

  // Deep pages: OFFSET walks every skipped row through the table and both joins. Find the
  // page's ids in an index first (covering once it holds id), then join 20 rows.
  const deepPage = Math.min(4000, Math.floor(size / 20));
  const [, deep] = exploreSql({ page: deepPage, limit: 20, sortBy: "createdAt:DESC" }, now);
  const deepNow = time(deep.sql, () => deep.params);

  // Search: `LIKE '%term%'` scans the whole table for the count.
  let term = 0;
  const nextTerm = () => SEARCH_TERMS[term++ % SEARCH_TERMS.length];
  const [searchCount] = exploreSql({ page: 1, limit: 20, sortBy: "createdAt:DESC", search: "x" }, now);
  const searchNow = time(searchCount.sql, () => [`%${nextTerm()}%`]);

  db.exec(`CREATE INDEX whatif_chain_verified_price ON assets (chain_id, is_verified, best_price_sort)`);
  const countFix = time(combinedCount.sql, () => combinedCount.params);
  compare("chainId + isVerified + hasListings: count", "index (chain_id, is_verified, best_price_sort)", countNow, countFix, countNow.result === countFix.result);

  db.exec(`CREATE INDEX whatif_created_id ON assets (created_at, id)`);
  const deferred = time(`${select} where "assets"."id" in (select "id" from "assets" order by "created_at" desc, "id" desc limit ? offset ?) order by "assets"."created_at" desc, "assets"."id" desc`, () => [...join, 20, (deepPage - 1) * 20]);
  compare(`page=${deepPage}&limit=20: page`, "index (created_at, id) + ids first: `id in (select id … limit 20 offset n)`", deepNow, deferred, ids(deepNow.result) === ids(deferred.result));

  const built = performance.now();
  db.exec(`CREATE VIRTUAL TABLE whatif_name_fts USING fts5(name_lower, content='assets', content_rowid='rowid', tokenize='trigram'); INSERT INTO whatif_name_fts(whatif_name_fts) VALUES ('rebuild');`);
  const buildMs = performance.now() - built;
  term = 0;
  const likeOnce = db.prepare(searchCount.sql).pluck();
  const ftsSql = `select count(*) from "assets" where "assets"."rowid" in (select rowid from whatif_name_fts where whatif_name_fts match ?)`;
  const ftsOnce = db.prepare(ftsSql).pluck();
  const sameCounts = SEARCH_TERMS.every((t) => likeOnce.get(`%${t}%`) === ftsOnce.get(`"${t}"`));
  const searchFix = time(ftsSql, () => [`"${nextTerm()}"`]);
  compare("search: count", `FTS5 trigram index on name_lower (built in ${Math.round(buildMs)} ms; terms of 3+ characters)`, searchNow, searchFix, sameCounts);
  return rows;
}
