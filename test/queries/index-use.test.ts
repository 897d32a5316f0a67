// The order lookups behind best listings, the expiry sweep and trending floors read the rows they
// need, not the whole orders table. SQLite without ANALYZE statistics rates `status = ? and
// end_time > ?` above a token's four equalities (decision 34), so each lookup here runs beside
// BULK active orders of other tokens and asserts D1's own rows_read count stays far below BULK.
// Counting rows, not timing them, keeps the test independent of the machine.
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { assets } from "../../src/db/schema";
import { getAsset } from "../../src/services/assets/read-assets";
import { trendingCollections } from "../../src/services/collections/trending";
import { sweepExpired } from "../../src/services/indexer/sweep";
import { dueForEndpoint, liveEndpoints, nextDueDelivery } from "../../src/services/webhooks/deliver";
import { listDrops } from "../../src/services/drops/read-drops";
import { refreshBestListingStatement, refreshBestListingsWhere } from "../../src/services/orders/best-listing";
import { listOrders, type OrderListQuery } from "../../src/services/orders/list-orders";
import { approvalForAllStatements } from "../../src/services/chain-events/apply";
import { claimLog, newLogGuard } from "../../src/services/chain-events/guard";
import { seedAsset, seedCollection, seedListing, seedSale, setBestListing } from "../fixtures/seed";
import { recordingD1, rowsReadBy } from "../helpers/d1-recorder";

const BULK = 400;
/** Far below BULK: what reading one token's or one collection's few orders may cost. */
const FEW_ROWS = 40;
const HOUR = 3_600_000;

/**
 * `count` orders on tokens 100000.. of `contract`, straight in SQL (one statement). Their stored
 * parameters are the least an order view reads: no items.
 */
async function bulkOrders(contract: string, count: number, status: "active" | "expired", endTime: number) {
  await env.DB.prepare(
    `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?1),
       o(i, offerer) as (select i, '0x' || lower(hex(randomblob(20))) from n)
     insert into orders (order_hash, chain_id, status, offerer, contract_address, token_id, quantity, unit_price, price_sort,
       price_symbol, start_time, end_time, counter, parameters, signature)
     select '0x' || lower(hex(randomblob(32))), 1868, ?2, offerer, ?3, cast(100000 + i as text), '1',
       cast(1000 + i as text), '0' || printf('%078d', 1000 + i), 'ETH', 0, ?4, '0',
       json_object('offerer', offerer, 'zone', '0x0000000000000000000000000000000000000000', 'offer', json('[]'), 'consideration', json('[]')), '0x' from o`,
  )
    .bind(count, status, contract, endTime)
    .run();
}

let collection: Awaited<ReturnType<typeof seedCollection>>;
let asset: Awaited<ReturnType<typeof seedAsset>>;

beforeAll(async () => {
  collection = await seedCollection({ name: "Busy market" });
  asset = await seedAsset(collection, "7");
  const elsewhere = await seedCollection({ name: "Other market" });
  await bulkOrders(collection.contractAddress, BULK, "active", Date.now() + 30 * 24 * HOUR);
  await bulkOrders(elsewhere.contractAddress, BULK, "active", Date.now() + 30 * 24 * HOUR);
});

describe("a token's best listing", () => {
  it("is recomputed from that token's orders alone", async () => {
    const cheap = await seedListing(asset, 5n, { endTime: new Date(Date.now() - 1000) });
    const live = await seedListing(asset, 9n);
    const result = await refreshBestListingStatement(env.DB, 1868, collection.contractAddress, "7", Date.now()).run();

    expect(result.meta.rows_read).toBeLessThan(FEW_ROWS);
    const row = await createDb(env.DB).select().from(assets).where(eq(assets.id, asset.id!)).get();
    // The cheaper order has ended: the live one's price is the token's best.
    expect(row?.bestOrderHash).toBe(live.orderHash);
    expect(row?.bestPriceSort).not.toBe(cheap.priceSort);
  });

  it("is recomputed for the tokens of matching orders from those tokens' orders alone", async () => {
    const live = await seedListing(asset, 8n);
    const result = await refreshBestListingsWhere(env.DB, "chain_id = ? and order_hash = ?", [1868, live.orderHash], Date.now()).run();

    expect(result.meta.rows_read).toBeLessThan(FEW_ROWS);
    const row = await createDb(env.DB).select().from(assets).where(eq(assets.id, asset.id!)).get();
    expect(row?.bestOrderHash).toBe(live.orderHash);
  });

  it("falls back at read time to the token's next live listing from its own orders", async () => {
    const expired = await seedListing(asset, 1n, { endTime: new Date(Date.now() - 1000) });
    await setBestListing(asset, expired);
    const { d1, statements } = recordingD1();
    const view = await getAsset({ env, db: createDb(d1) }, 1868, collection.contractAddress, "7");

    expect(statements).toHaveLength(1);
    expect(await rowsReadBy(statements[0]!)).toBeLessThan(FEW_ROWS);
    // The cheapest listing still live: 8 wei (5 wei ended before the first test).
    expect(view.bestListing?.orderHash).not.toBe(expired.orderHash);
    expect(view.bestListing?.unitPrice).toBe("8");
  });
});

describe("the order list", () => {
  const listed = async (query: Partial<OrderListQuery>) => {
    const { d1, statements } = recordingD1();
    const page = await listOrders({ env, db: createDb(d1) }, { chainId: 1868, status: "active", sortBy: "price:ASC", page: 1, limit: 20, ...query });
    return { page, rowsRead: await Promise.all(statements.map(rowsReadBy)) };
  };

  it("reads a token's orders alone, and a page of a collection's from its price index", async () => {
    // Dearer than every other order of the collection: the floor and best-listing tests stay as they were.
    const ask = await seedListing(await seedAsset(collection, "9"), 9_000n, { offerer: "0x00000000000000000000000000000000000b0b0b" });
    const token = await listed({ contractAddress: collection.contractAddress, tokenId: "9" });
    expect(token.page.data.map((order) => order.orderHash)).toContain(ask.orderHash);
    for (const rows of token.rowsRead) expect(rows).toBeLessThan(FEW_ROWS);

    // The count reads the collection's BULK orders (it counts them); the page, about a page.
    const collectionPage = await listed({ contractAddress: collection.contractAddress, sortBy: "price:DESC", limit: 1 });
    expect(collectionPage.page.data.map((order) => order.orderHash)).toEqual([ask.orderHash]);
    expect(collectionPage.page.total).toBeGreaterThan(BULK);
    const [nativeCount, tokenCount, pageRows] = collectionPage.rowsRead;
    expect(nativeCount).toBeLessThan(2 * BULK);
    expect(tokenCount).toBeLessThan(FEW_ROWS);
    expect(pageRows).toBeLessThan(FEW_ROWS);

    // An offerer's, alone or in a collection of BULK orders, from the offerer's index.
    for (const scope of [{}, { contractAddress: collection.contractAddress }]) {
      const offerer = await listed({ offerer: "0x00000000000000000000000000000000000b0b0b", ...scope });
      expect(offerer.page.data.map((order) => order.orderHash)).toEqual([ask.orderHash]);
      for (const rows of offerer.rowsRead) expect(rows).toBeLessThan(FEW_ROWS);
    }
  });
});

describe("the order list's indexes", () => {
  const LIST_INDEX = /^SEARCH orders USING COVERING INDEX orders_(token_status_price|contract_status_price|offerer)_idx /;
  const BY_HASH = /^SEARCH orders USING INDEX sqlite_autoindex_orders_1 \(order_hash=\?\)$/;
  const planOf = async (statement: { sql: string; params: unknown[] }) =>
    (await env.DB.prepare(`explain query plan ${statement.sql}`).bind(...statement.params).all<{ id: number; parent: number; detail: string }>()).results;

  it("give a page's ids and its count without reading table rows, in either direction", async () => {
    const offerer = "0x00000000000000000000000000000000000b0b0b";
    const scopes: Partial<OrderListQuery>[] = [
      { contractAddress: collection.contractAddress },
      { contractAddress: collection.contractAddress, tokenId: "9" },
      { offerer },
      { offerer, contractAddress: collection.contractAddress },
    ];
    // Page 3 of 5: descending, the native range's page. Far past the end: descending, the ERC20
    // range's page alone, as a list beyond its native orders pages.
    const pages = [
      { page: 3, limit: 5 },
      { page: 100_000, limit: 1 },
    ];
    for (const scope of scopes) {
      for (const sortBy of ["price:ASC", "price:DESC"] as const) {
        for (const paging of pages) {
          const { d1, statements } = recordingD1();
          await listOrders({ env, db: createDb(d1) }, { chainId: 1868, status: "active", sortBy, ...paging, ...scope });
          // A count (two when descending) and a page.
          expect(statements.length).toBe(sortBy === "price:ASC" ? 2 : 3);
          for (const statement of statements) await expectCoveringPlan(statement, `${JSON.stringify(scope)} ${sortBy} ${JSON.stringify(paging)}`);
        }
      }
    }
  });

  async function expectCoveringPlan(statement: { sql: string; params: unknown[] }, label: string) {
    const plan = await planOf(statement);
    const context = `${label}: ${plan.map((step) => step.detail).join("; ")}`;
    const reads = plan.filter((step) => / orders /.test(`${step.detail} `));
    expect(reads.some((step) => LIST_INDEX.test(step.detail)), context).toBe(true);
    // Counts and page ids on a list index, covering; only the page's own rows by hash.
    for (const step of reads) expect(step.detail, context).toMatch(new RegExp(`${LIST_INDEX.source}|${BY_HASH.source}`));
    expect(reads.filter((step) => BY_HASH.test(step.detail)).length, context).toBeLessThanOrEqual(1);
    // The page's ids come off the index in order: no sort of the skipped rows.
    const subqueries = new Set(plan.filter((step) => /SUBQUERY/.test(step.detail)).map((step) => step.id));
    const sortsInside = plan.filter((step) => subqueries.has(step.parent) && /TEMP B-TREE/.test(step.detail));
    expect(sortsInside, context).toEqual([]);
  }
});

describe("a revoked Seaport approval", () => {
  it("deactivates and re-prices the owner's orders from the owner's orders alone", async () => {
    const seaport = "0x0000000000000068f116a894984e2db1123eb395";
    const owner = "0x00000000000000000000000000000000000a11ce";
    const own = await seedListing(asset, 2n, { offerer: owner });
    const log = { transactionHash: `0x${"ab".repeat(32)}`, logIndex: 0, blockNumber: 1, blockHash: `0x${"cd".repeat(32)}` };
    const guard = newLogGuard(1868, log);
    const revoked = { contract: collection.contractAddress, owner, operator: seaport, approved: false, ...log };
    const statements = approvalForAllStatements(env.DB, guard, revoked, seaport);

    const [, deactivate, refresh] = await env.DB.batch([claimLog(env.DB, guard), ...statements]);

    expect(deactivate!.meta.changes).toBe(1);
    expect(deactivate!.meta.rows_read).toBeLessThan(FEW_ROWS);
    expect(refresh!.meta.rows_read).toBeLessThan(FEW_ROWS);
    const order = await env.DB.prepare("select status from orders where order_hash = ?").bind(own.orderHash).first<{ status: string }>();
    expect(order?.status).toBe("inactive");
  });
});

describe("the expiry sweep", () => {
  it("reads the orders it expires, not every order that ever expired", async () => {
    const history = await seedCollection({ name: "Old market" });
    await bulkOrders(history.contractAddress, BULK, "expired", Date.now() - 24 * HOUR);
    const ending = await seedListing(asset, 3n, { endTime: new Date(Date.now() - 500) });
    await setBestListing(asset, ending);
    const { d1, rowsRead } = recordingD1();

    await sweepExpired(d1, Date.now());

    const [refresh, expire] = rowsRead();
    expect(refresh).toBeLessThan(FEW_ROWS);
    expect(expire).toBeLessThan(FEW_ROWS);
    const row = await createDb(env.DB).select().from(assets).where(eq(assets.id, asset.id!)).get();
    expect(row?.bestOrderHash).not.toBe(ending.orderHash);
    expect(row?.bestOrderHash).not.toBeNull();
  });
});

describe("trending floors", () => {
  it("take one index walk per collection, not a read of every active order", async () => {
    await seedSale(collection, 10n ** 18n, new Date(Date.now() - HOUR));
    const { d1, rowsRead } = recordingD1();

    const entries = await trendingCollections({ env, db: createDb(d1) }, { chainId: 1868, period: "24h", limit: 10 });

    const floors = rowsRead().at(-1)!;
    expect(floors).toBeLessThan(FEW_ROWS);
    const entry = entries.find((e) => e.collection.id === collection.id);
    // Live listings of token 7 ask 9 and 8 wei (the bulk from 1,001); those of 5, 3 and 1 wei ended.
    expect(entry?.floorPrice).toBe("8");
  });
});

describe("trending volumes", () => {
  it("sum each period's sales from an index alone", async () => {
    await seedSale(collection, 2n * 10n ** 18n, new Date(Date.now() - 30 * 60_000));
    const { d1, statements } = recordingD1();

    await trendingCollections({ env, db: createDb(d1) }, { chainId: 1868, period: "24h", limit: 10 });

    const fromSales = statements.filter((statement) => statement.sql.includes('from "sales"'));
    // The chain's current period, then the previous period by collection.
    expect(fromSales.length).toBe(2);
    for (const statement of fromSales) {
      const plan = await env.DB.prepare(`explain query plan ${statement.sql}`).bind(...statement.params).all<{ detail: string }>();
      const salesSteps = plan.results.map((step) => step.detail).filter((detail) => / sales /.test(detail));
      expect(salesSteps.length).toBeGreaterThan(0);
      for (const step of salesSteps) expect(step).toContain("USING COVERING INDEX");
    }
  });
});

describe("a project's webhook dispatcher", () => {
  it("reads its own due deliveries, not another project's backlog", async () => {
    // Another project's endpoint that stopped answering: BULK deliveries due now, still pending.
    await env.DB.prepare("insert into webhook_endpoints (id, project_id, url, events) values ('dead', 'noisy', 'https://dead.example', '[]')").run();
    await env.DB.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?1)
       insert into webhook_deliveries (id, endpoint_id, project_id, event_id, event_type, payload, status, next_attempt_at)
       select 'backlog-' || i, 'dead', 'noisy', 'event-' || i, 'transaction.confirmed', '{}', 'pending', ?2 from n`,
    )
      .bind(BULK, Date.now() - HOUR)
      .run();
    const ctx = { env, db: createDb(env.DB) };

    for (const query of [liveEndpoints(ctx, "quiet").toSQL(), dueForEndpoint(ctx, "quiet-endpoint", Date.now()).toSQL(), nextDueDelivery(ctx, "quiet").toSQL()]) {
      expect(await rowsReadBy(query)).toBeLessThan(FEW_ROWS);
    }
    // The backlog itself is still found by its own project.
    expect(await dueForEndpoint(ctx, "dead", Date.now()).all()).not.toHaveLength(0);
  });

  it("reads an endpoint's due deliveries, not its delivered history", async () => {
    await env.DB.prepare("insert into webhook_endpoints (id, project_id, url, events) values ('busy', 'busy-project', 'https://busy.example', '[]')").run();
    await env.DB.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?1)
       insert into webhook_deliveries (id, endpoint_id, project_id, event_id, event_type, payload, status, next_attempt_at, created_at)
       select 'history-' || i, 'busy', 'busy-project', 'history-event-' || i, 'transaction.confirmed', '{}',
              case when i = ?1 then 'pending' else 'delivered' end, ?2 + i, ?2 + i from n`,
    )
      .bind(BULK, Date.now() - HOUR)
      .run();
    // And a neighbour endpoint's backlog, due now: not this endpoint's to read either.
    await env.DB.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?1)
       insert into webhook_deliveries (id, endpoint_id, project_id, event_id, event_type, payload, status, next_attempt_at, created_at)
       select 'neighbour-' || i, 'busy-neighbour', 'busy-project', 'neighbour-event-' || i, 'transaction.confirmed', '{}', 'pending', ?2, ?2 from n`,
    )
      .bind(BULK, Date.now() - HOUR)
      .run();
    const ctx = { env, db: createDb(env.DB) };

    expect((await dueForEndpoint(ctx, "busy", Date.now()).all()).map((row) => row.id)).toEqual([`history-${BULK}`]);
    expect(await rowsReadBy(dueForEndpoint(ctx, "busy", Date.now()).toSQL())).toBeLessThan(FEW_ROWS);
  });
});

describe("the drop list", () => {
  it("finds a project's drops, or a contract's, without walking the chain's", async () => {
    await env.DB.prepare(
      "insert into projects (id, name, wallet_index, wallet_address) values ('crowd', 'Crowd', 900001, '0xc0'), ('few', 'Few', 900002, '0xf0')",
    ).run();
    // BULK drops of one project on the chain, then two of another, older than all of them.
    await env.DB.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?1)
       insert into drops (id, project_id, chain_id, contract_address, salt, name, symbol, owner_address, blindbox_key, provenance_hash,
         base_uri, mode, metadata_storage_type, creator_fee_address, creator_fee_bps, unit_price, created_at, updated_at)
       select 'crowd-' || i, case when i <= 2 then 'few' else 'crowd' end, 1868, '0x' || printf('%040x', 700000 + i), '0x01', 'Drop ' || i, 'D',
         '0x' || printf('%040x', 1), '0xkey', '0xhash', 'https://e.com/', 'standard', 'self-hosted', '0x' || printf('%040x', 2), 0, '0', 1700000000000 + i, 1700000000000 + i from n`,
    )
      .bind(BULK)
      .run();
    const page = { page: 1, limit: 20, sortBy: [["createdAt", "DESC"]] as [string, "DESC"][], filter: {} };

    for (const filters of [{ projectId: "few", chainId: 1868 }, { contractAddress: `0x${(700000 + 1).toString(16).padStart(40, "0")}` }]) {
      const { d1, rowsRead } = recordingD1();
      const { total } = await listDrops({ env, db: createDb(d1) }, page, filters, "few");

      expect(total).toBe("projectId" in filters ? 2 : 1);
      const reads = rowsRead();
      expect(reads.length).toBeGreaterThan(0);
      for (const rows of reads) expect(rows).toBeLessThan(FEW_ROWS);
    }
  });
});

