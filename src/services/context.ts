import { createDb, type Db } from "../db/client";

/** What business logic needs from the platform: bindings and a drizzle handle. */
export interface ServiceContext {
  env: Env;
  db: Db;
}

const dbs = new WeakMap<D1Database, Db>();

export function serviceContext(env: Env): ServiceContext {
  let db = dbs.get(env.DB);
  if (!db) {
    db = createDb(env.DB);
    dbs.set(env.DB, db);
  }
  return { env, db };
}
