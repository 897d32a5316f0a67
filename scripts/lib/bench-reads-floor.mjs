// The floor of `npm run bench:reads`: each case's SQL run straight on the SQLite file wrangler
// dev served, with better-sqlite3, after wrangler has stopped (so the two never share the CPU).
// better-sqlite3 is synchronous, so requests run one after another on one connection; a
// request's latency is its count query plus its page query, as D1 runs them one after the
// other too (one Durable Object, one thread). Statements are prepared once, as a floor should.
import { performance } from "node:perf_hooks";
import Database from "better-sqlite3";
import { stats } from "./bench-reads-load.mjs";

export function openFloor(file) {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  const cache = new Map();
  const prepare = (sql) => {
    let statement = cache.get(sql);
    if (!statement) cache.set(sql, (statement = db.prepare(sql)));
    return statement;
  };
  // raw(): rows as arrays, as drizzle asks D1 for them.
  const run = ({ sql, params }) => (/^select count\(\*\)/.test(sql) ? prepare(sql).pluck().get(params) : prepare(sql).raw().all(params));

  /** Sequential requests of `testCase` for up to `maxRequests` or `maxMs`; warms up first. */
  function measure(testCase, { maxRequests, maxMs, warmup = 50 }) {
    for (let i = 0; i < warmup; i++) testCase.statements(testCase.draw()).forEach(run);
    const total = [];
    const perStatement = [];
    const started = performance.now();
    while (total.length < maxRequests && performance.now() - started < maxMs) {
      const statements = testCase.statements(testCase.draw());
      const t0 = performance.now();
      let last = t0;
      statements.forEach((statement, i) => {
        run(statement);
        const now = performance.now();
        (perStatement[i] ??= []).push(now - last);
        last = now;
      });
      total.push(last - t0);
    }
    const elapsedMs = performance.now() - started;
    return { ...stats(total), qps: (total.length / elapsedMs) * 1000, statements: perStatement.map(stats) };
  }

  /** EXPLAIN QUERY PLAN of each statement, one compact line per statement. */
  function explain(testCase) {
    return testCase.statements(testCase.draw()).map(({ sql, params }) =>
      db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(params)
        .map((row) => row.detail)
        .join("; "),
    );
  }

  return { run, measure, explain, close: () => db.close() };
}
