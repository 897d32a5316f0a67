// Migration 0012 adds orders.start_pending (decision 45). Listings already stored with a start
// still ahead must get the flag, or the sweep would never bring them in when they start.
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { applyMigration, applyMigrationsBefore } from "./apply";

function insertOrder(db: Database.Database, tokenId: string, status: string, startTime: number) {
  db.prepare(
    `insert into orders (order_hash, chain_id, status, offerer, contract_address, token_id, quantity, unit_price, price_sort, currency_address,
       price_symbol, start_time, end_time, counter, parameters, signature)
     values (?, 1868, ?, '0xseller', '0xdrop', ?, '1', '1', '01', null, 'ETH', ?, 9999999999999, '0', '{}', '0x')`,
  ).run(`0x${tokenId.padStart(64, "0")}`, status, tokenId, startTime);
}

describe("migration 0012_listing_start", () => {
  it("flags the stored listings whose start is still ahead, and only those", () => {
    const db = new Database(":memory:");
    applyMigrationsBefore(db, "0012");
    const hourAhead = Date.now() + 3_600_000;
    insertOrder(db, "1", "active", Date.now() - 60_000); // started
    insertOrder(db, "2", "active", hourAhead); // not yet
    insertOrder(db, "3", "inactive", hourAhead); // may be revived before it starts
    insertOrder(db, "4", "cancelled", hourAhead); // never live again

    applyMigration(db, "0012_listing_start.sql");

    expect(db.prepare("select token_id, start_pending from orders order by token_id").all()).toEqual([
      { token_id: "1", start_pending: 0 },
      { token_id: "2", start_pending: 1 },
      { token_id: "3", start_pending: 1 },
      { token_id: "4", start_pending: 0 },
    ]);
  });
});
