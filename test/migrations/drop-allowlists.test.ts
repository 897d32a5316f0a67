// Migration 0006 moves inline allowlist trees out of `drops` before dropping the column: applied
// to a database that already holds drops, no tree may be lost and no other column may change.
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { applyMigration, migrationFiles } from "./apply";

function insertDrop(db: Database.Database, id: string, tree: string | null) {
  db.prepare(
    `insert into drops (id, project_id, chain_id, contract_address, salt, name, symbol, owner_address, blindbox_key, provenance_hash,
       base_uri, mode, metadata_storage_type, creator_fee_address, creator_fee_bps, unit_price, merkle_root, allowlist_tree, next_token_id)
     values (?, 'p', 1868, ?, '0x01', 'Drop', 'DRP', '0xowner', '0xkey', '0xhash', 'https://e.com/', 'standard', 'self-hosted', '0xfee', 0, '0', ?, ?, 7)`,
  ).run(id, `0x${id.padStart(40, "0")}`, tree === null ? null : "0xroot", tree);
}

describe("migration 0006_drop_allowlists", () => {
  it("moves every inline tree to drop_allowlists and leaves the drops otherwise as they were", () => {
    const db = new Database(":memory:");
    const before = migrationFiles.filter((name) => name < "0006");
    expect(before).toHaveLength(6);
    for (const file of before) applyMigration(db, file);
    // Foreign keys are on, as in D1.
    db.prepare("insert into projects (id, name, wallet_index, wallet_address) values ('p', 'Project', 0, '0xwallet')").run();
    const tree = JSON.stringify({ format: "standard-v1", tree: ["0xab"], values: [] }).repeat(2_000);
    insertDrop(db, "a", tree);
    insertDrop(db, "b", null);
    // Every column the migration keeps, with its value.
    const withoutTree = (rows: unknown[]) => rows.map((row) => Object.fromEntries(Object.entries(row as object).filter(([name]) => name !== "allowlist_tree")));
    const dropsBefore = withoutTree(db.prepare("select * from drops order by id").all());
    expect(Object.keys(dropsBefore[0]!).length).toBeGreaterThan(10);

    applyMigration(db, "0006_drop_allowlists.sql");

    expect(db.prepare("select drop_id, tree from drop_allowlists").all()).toEqual([{ drop_id: "a", tree }]);
    expect(db.prepare("select * from drops order by id").all()).toEqual(dropsBefore);
    const columns = db.prepare("select name from pragma_table_info('drops')").all() as { name: string }[];
    expect(columns.map((c) => c.name)).not.toContain("allowlist_tree");
  });
});
