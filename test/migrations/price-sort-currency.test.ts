// Migration 0007 puts the currency class in front of every price sort key (decision 27): applied
// to a database that already holds listings, native keys become '0' + the old key, token keys
// '1' + the old key, and every asset's best price follows its best order.
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { applyMigration, applyMigrationsBefore } from "./apply";
import { priceSortKey } from "../../src/services/orders/price-sort";

const oldKey = (price: bigint) => price.toString().padStart(78, "0");

function insertListedAsset(db: Database.Database, tokenId: string, price: bigint, currency: string | null) {
  const orderHash = `0x${tokenId.padStart(64, "0")}`;
  db.prepare(
    `insert into orders (order_hash, chain_id, status, offerer, contract_address, token_id, quantity, unit_price, price_sort, currency_address,
       price_symbol, start_time, end_time, counter, parameters, signature)
     values (?, 1868, 'active', '0xseller', '0xdrop', ?, '1', ?, ?, ?, 'X', 0, 9999999999999, '0', '{}', '0x')`,
  ).run(orderHash, tokenId, price.toString(), oldKey(price), currency);
  db.prepare(
    `insert into assets (id, chain_id, contract_address, token_id, collection_id, schema, best_price_sort, best_order_hash)
     values (?, 1868, '0xdrop', ?, 'c', 'ERC721', ?, ?)`,
  ).run(`asset-${tokenId}`, tokenId, oldKey(price), orderHash);
}

describe("migration 0007_price_sort_currency", () => {
  it("prefixes every key with its currency class, once, and re-copies the assets' best prices", () => {
    const db = new Database(":memory:");
    applyMigrationsBefore(db, "0007");
    db.prepare("insert into collections (id, slug, chain_id, contract_address, schema) values ('c', 'drop', 1868, '0xdrop', 'ERC721')").run();
    insertListedAsset(db, "1", 10n ** 18n, null);
    insertListedAsset(db, "2", 100n, "0xtoken");
    db.prepare(
      `insert into assets (id, chain_id, contract_address, token_id, collection_id, schema) values ('asset-3', 1868, '0xdrop', '3', 'c', 'ERC721')`,
    ).run();

    applyMigration(db, "0007_price_sort_currency.sql");
    // Applying it again (a re-run) must not prefix twice.
    applyMigration(db, "0007_price_sort_currency.sql");

    expect(db.prepare("select token_id, price_sort from orders order by token_id").all()).toEqual([
      { token_id: "1", price_sort: priceSortKey(10n ** 18n, null) },
      { token_id: "2", price_sort: priceSortKey(100n, "0xtoken") },
    ]);
    expect(db.prepare("select token_id, best_price_sort from assets order by token_id").all()).toEqual([
      { token_id: "1", best_price_sort: priceSortKey(10n ** 18n, null) },
      { token_id: "2", best_price_sort: priceSortKey(100n, "0xtoken") },
      { token_id: "3", best_price_sort: null },
    ]);
  });
});
