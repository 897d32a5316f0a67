// Runs the migration files themselves on SQLite (better-sqlite3, in Node), as D1 applies them.
import type Database from "better-sqlite3";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

const MIGRATIONS = path.resolve(__dirname, "../../migrations");
export const migrationFiles = readdirSync(MIGRATIONS).filter((name) => name.endsWith(".sql")).sort();

export function applyMigration(db: Database.Database, file: string) {
  for (const statement of readFileSync(path.join(MIGRATIONS, file), "utf8").split("--> statement-breakpoint")) {
    if (statement.trim()) db.exec(statement);
  }
}

/** Every migration whose file name sorts before `prefix` (e.g. "0007"). */
export function applyMigrationsBefore(db: Database.Database, prefix: string) {
  for (const file of migrationFiles.filter((name) => name < prefix)) applyMigration(db, file);
}
