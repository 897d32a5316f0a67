// What statements a service sent to D1 and how many rows D1 read for them (`meta.rows_read`):
// the query-plan tests assert rows read, never time. Also a D1 whose chosen statements fail.
import { env } from "cloudflare:workers";

export interface RecordedStatement {
  sql: string;
  params: unknown[];
}

/**
 * A D1 binding that keeps the SQL and parameters of every statement prepared through it and the
 * meta of every batch result (drizzle's logger sees neither batches nor raw statements).
 */
const method = (target: object, key: string | symbol) => {
  const value = Reflect.get(target, key);
  return typeof value === "function" ? value.bind(target) : value;
};

export function recordingD1(): { d1: D1Database; rowsRead: () => number[]; statements: RecordedStatement[] } {
  const results: D1Result[] = [];
  const statements: RecordedStatement[] = [];
  const d1 = new Proxy(env.DB, {
    get(target, key) {
      if (key === "batch") {
        return async (batch: D1PreparedStatement[]) => {
          const answers = await target.batch(batch);
          results.push(...answers);
          return answers;
        };
      }
      if (key === "prepare") {
        return (sql: string) => {
          const entry: RecordedStatement = { sql, params: [] };
          statements.push(entry);
          const statement = target.prepare(sql);
          let bound = false;
          // A statement prepared once and bound several times (once per chunk of a list) is an entry per bind.
          const bind = (...params: unknown[]) => {
            if (bound) statements.push({ sql, params });
            else entry.params = params;
            bound = true;
            return statement.bind(...params);
          };
          return new Proxy(statement, { get: (inner, innerKey) => (innerKey === "bind" ? bind : method(inner, innerKey)) });
        };
      }
      return method(target, key);
    },
  });
  return { d1, rowsRead: () => results.map((result) => result.meta.rows_read), statements };
}

/** Runs `statement` again on D1 and returns the rows it read. */
export async function rowsReadBy(statement: RecordedStatement): Promise<number> {
  const { meta } = await env.DB.prepare(statement.sql).bind(...statement.params).all();
  return meta.rows_read;
}

/** The test D1, except that every statement whose SQL matches `failing` fails when run. */
export function d1FailingFor(failing: RegExp): D1Database {
  const unavailable = () => Promise.reject(new Error("D1 is unavailable"));
  const statement = { bind: () => statement, run: unavailable, all: unavailable, raw: unavailable, first: unavailable };
  return new Proxy(env.DB, {
    get: (target, key) => (key === "prepare" ? (sql: string) => (failing.test(sql) ? statement : target.prepare(sql)) : method(target, key)),
  });
}
