// "What if": candidate fixes for the explore cases that are still SQL-bound, timed on a copy of
// the benchmark database next to the SQL the service runs today, so the recommendations in
// docs/benchmarks.md carry numbers from the same run. Only the copy gets the extra index.
import { copyFileSync, rmSync } from "node:fs";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { SEARCH_TERMS } from "./bench-reads-data.mjs";
import { stats } from "./bench-reads-load.mjs";
import { exploreSql, pageSql } from "./bench-reads-sql.mjs";

const RUNS = 20;

export function runWhatIf(sqliteFile, copyPath, log = () => {}) {
  copyFileSync(sqliteFile, copyPath);
  const db = new Database(copyPath);
  try {
    return experiments(db, log);
  } finally {
    db.close();
    rmSync(copyPath, { force: true });
  }
}

function experiments(db, log) {
  const now = Date.now();
  const time = (statements) => {
    const prepared = statements.map(({ sql }) => db.prepare(sql));
    const run = () => statements.map(({ sql, params }, i) => (/^select count/.test(sql) ? prepared[i].pluck().get(params()) : prepared[i].raw().all(params())));
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
  const fixed = (statement) => ({ sql: statement.sql, params: () => statement.params });
  const ids = (rows) => rows.map((row) => row[0]).join();
  const rows = [];
  // `same`: the candidate returns exactly today's rows or count (checked on the last run).
  const compare = (name, change, before, after, same = null) => {
    rows.push({ name, change, before, after, same });
    log(`${name}: p50 ${before.p50.toFixed(2)} → ${after.p50.toFixed(2)} ms`);
  };
  const page1 = { page: 1, limit: 20 };

  // price:ASC orders by `best_price_sort is null` first, which no index serves: every page
  // sorts all assets. Listed rows come first by the price index; unlisted ones follow by
  // created_at (`+` keeps SQLite off the price index for IS NULL) at offset − listed count.
  const [, priceAsc] = exploreSql({ ...page1, sortBy: "price:ASC" }, now);
  const priceNow = time([fixed(priceAsc)]);
  const listedOrder = `"assets"."best_price_sort" asc, "assets"."created_at" desc, "assets"."id" desc`;
  const listed = time([fixed(pageSql(` where "assets"."best_price_sort" is not null`, [], listedOrder, page1, now))]);
  compare("price:ASC, page 1", "listed assets by the price index, then unlisted ones by created_at", priceNow, listed, ids(priceNow.result[0]) === ids(listed.result[0]));
  const unlisted = time([fixed(pageSql(` where +"assets"."best_price_sort" is null`, [], `"assets"."created_at" desc, "assets"."id" desc`, page1, now))]);
  compare("price:ASC, first page past the listed assets", "the same split: unlisted assets by created_at", priceNow, unlisted);

  // Counts: one index entry per matching row on every page. A capped count stops early.
  const [chainCount] = exploreSql({ ...page1, sortBy: "createdAt:DESC", chainId: 1868 }, now);
  const countNow = time([fixed(chainCount)]);
  const capped = time([{ sql: `select count(*) from (select 1 from "assets" where "assets"."chain_id" = ? limit 10001)`, params: () => [1868] }]);
  compare("chainId=1868: count", "count at most 10,001 rows (answer \"10,000+\")", countNow, capped);

  // Search: `LIKE '%term%'` scans the whole table for the count, and the page scans the
  // created_at index until it has 20 matches (all of it for a rare word).
  let term = 0;
  const word = () => SEARCH_TERMS[term++ % SEARCH_TERMS.length];
  const search = () => exploreSql({ ...page1, sortBy: "createdAt:DESC", search: "x" }, now);
  const [likeCount, likePage] = search();
  const like = (statement, index) => ({ sql: statement.sql, params: () => statement.params.map((p, i) => (i === index ? `%${word()}%` : p)) });
  const searchNow = time([like(likeCount, 0), like(likePage, 2)]);

  const built = performance.now();
  db.exec(`CREATE VIRTUAL TABLE whatif_name_fts USING fts5(name_lower, content='assets', content_rowid='rowid', tokenize='trigram'); INSERT INTO whatif_name_fts(whatif_name_fts) VALUES ('rebuild');`);
  const buildMs = performance.now() - built;
  const inFts = `"assets"."rowid" in (select rowid from whatif_name_fts where whatif_name_fts match ?)`;
  const ftsPage = pageSql(` where ${inFts}`, ["x"], `"assets"."created_at" desc, "assets"."id" desc`, page1, now);
  term = 0;
  const quoted = (statement, index) => ({ sql: statement.sql, params: () => statement.params.map((p, i) => (i === index ? `"${word()}"` : p)) });
  const searchFix = time([quoted({ sql: `select count(*) from "assets" where ${inFts}`, params: ["x"] }, 0), quoted(ftsPage, 2)]);
  // Same answers for every search word: count and first page.
  const withWord = (params, index, value) => params.map((p, i) => (i === index ? value : p));
  const statements = [likeCount.sql, likePage.sql, `select count(*) from "assets" where ${inFts}`, ftsPage.sql].map((sql) => db.prepare(sql));
  const same = SEARCH_TERMS.every(
    (w) =>
      statements[0].pluck().get(`%${w}%`) === statements[2].pluck().get(`"${w}"`) &&
      ids(statements[1].raw().all(withWord(likePage.params, 2, `%${w}%`))) === ids(statements[3].raw().all(withWord(ftsPage.params, 2, `"${w}"`))),
  );
  compare("search: count + page", `FTS5 trigram table on name_lower (built in ${Math.round(buildMs)} ms; words of 3+ characters)`, searchNow, searchFix, same);
  return rows;
}
