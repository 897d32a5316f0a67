// Loads the bench dataset into the D1 SQLite file wrangler persisted (migrations already applied
// by wrangler, wrangler dev not running). Measured on 2 cores for 100k assets: this takes about
// 6 s, while the same rows as a 148 MB file of 90 kB multi-row INSERTs through
// `wrangler d1 execute DB --local --file` took 57 s. The caller then counts the rows through
// wrangler, so a change in miniflare's layout fails loudly instead of benchmarking an empty DB.
import Database from "better-sqlite3";
import { COLUMNS } from "./bench-reads-data.mjs";

export function seedSqlite(file, rows, onProgress = () => {}) {
  const db = new Database(file);
  try {
    const inserts = {};
    const insertAll = db.transaction(() => {
      for (const [table, chunk] of rows()) {
        const columns = COLUMNS[table];
        inserts[table] ??= db.prepare(`INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`);
        for (const row of chunk) inserts[table].run(row);
        onProgress(table, chunk.length);
      }
    });
    insertAll();
    // Fold the WAL back so workerd opens one self-contained file.
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
}
