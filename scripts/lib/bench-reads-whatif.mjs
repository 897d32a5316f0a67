// "What if": candidate fixes for the explore cases that are still SQL-bound, timed on a copy of
// the benchmark database next to the SQL the service runs today, so the recommendations in
// docs/benchmarks.md carry numbers from the same run. Only the copy gets the extra index.
import { copyFileSync, rmSync } from "node:fs";
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { stats } from "./bench-reads-load.mjs";
import { exploreSql } from "./bench-reads-sql.mjs";

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
  const rows = [];
  // `same`: the candidate returns exactly today's rows or count (checked on the last run).
  const compare = (name, change, before, after, same = null) => {
    rows.push({ name, change, before, after, same });
    log(`${name}: p50 ${before.p50.toFixed(2)} → ${after.p50.toFixed(2)} ms`);
  };
  const page1 = { page: 1, limit: 20 };

  // Counts: one index entry per matching row on every page. A capped count stops early.
  const [chainCount] = exploreSql({ ...page1, sortBy: "createdAt:DESC", chainId: 1868 }, now);
  const countNow = time([fixed(chainCount)]);
  const capped = time([{ sql: `select count(*) from (select 1 from "assets" where "assets"."chain_id" = ? limit 10001)`, params: () => [1868] }]);
  compare("chainId=1868: count", "count at most 10,001 rows (answer \"10,000+\")", countNow, capped);

  return rows;
}
