import { beforeAll, describe, expect, it } from "vitest";
import { seedAsset, seedCollection, seedListing, seedSale, seedTransaction } from "../fixtures/seed";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";

const ETH = 1_000_000_000_000_000_000n;
const HOUR = 3_600_000;

describe("GET /v1/collections/trending", () => {
  let reader: TestProject;
  let hot: Awaited<ReturnType<typeof seedCollection>>;
  let steady: Awaited<ReturnType<typeof seedCollection>>;
  let tiedA: Awaited<ReturnType<typeof seedCollection>>;
  let tiedB: Awaited<ReturnType<typeof seedCollection>>;
  let moreSales: Awaited<ReturnType<typeof seedCollection>>;

  beforeAll(async () => {
    reader = await createTestProject("Trend reader");
    const now = Date.now();
    hot = await seedCollection({ name: "Hot" });
    steady = await seedCollection({ name: "Steady" });
    tiedA = await seedCollection({ slug: "aaa-tied", name: "Tied A" });
    tiedB = await seedCollection({ slug: "bbb-tied", name: "Tied B" });
    // hot: 2 sales in the last 24 h (3 ETH + 2.5 ETH + 7 wei, exact beyond 2^53), 1 ETH the day before.
    await seedSale(hot, 3n * ETH, new Date(now - 2 * HOUR));
    await seedSale(hot, (5n * ETH) / 2n + 7n, new Date(now - 3 * HOUR));
    await seedSale(hot, ETH, new Date(now - 30 * HOUR));
    // steady: 1 sale of 2 ETH in the window, an ERC20 sale that counts as a sale but not volume.
    await seedSale(steady, 2n * ETH, new Date(now - HOUR / 2));
    await seedSale(steady, 999n * ETH, new Date(now - HOUR / 2), { currencyAddress: "0x00000000000000000000000000000000000000aa" });
    // Ties on volume and sales break on slug.
    await seedSale(tiedB, ETH / 10n, new Date(now - 5 * HOUR));
    await seedSale(tiedA, ETH / 10n, new Date(now - 5 * HOUR));
    // The same volume in two sales ranks above both, whatever its slug.
    moreSales = await seedCollection({ slug: "zzz-more-sales", name: "More sales" });
    await seedSale(moreSales, ETH / 20n, new Date(now - 5 * HOUR));
    await seedSale(moreSales, ETH / 20n, new Date(now - 6 * HOUR));
    // A testnet collection's big sale: its ETH is not mainnet ETH, and trending ranks one chain at a time.
    const testnet = await seedCollection({ chainId: 1946, name: "Testnet whale" });
    await seedSale(testnet, 1000n * ETH, new Date(now - HOUR));
    // Seven more small sellers: twelve collections traded, more than the default limit of ten.
    for (let i = 1; i <= 7; i++) await seedSale(await seedCollection({ slug: `small-${i}`, name: `Small ${i}` }), BigInt(i), new Date(now - 7 * HOUR));
    // hot has a floor of 0.5 ETH (cheapest live listing) and a pricier one; a cancelled listing
    // and one that starts in an hour (Seaport would refuse to fill it) are cheaper but not live.
    const asset = await seedAsset(hot, "1");
    await seedListing(asset, ETH / 2n);
    await seedListing(asset, ETH);
    await seedListing(asset, ETH / 100n, { status: "cancelled" });
    await seedListing(asset, ETH / 1000n, { startTime: new Date(now + HOUR), startPending: true });
  });

  it("ranks by volume with sales, floor and change versus the previous period", async () => {
    const { status, body } = await call("/v1/collections/trending?chainId=1868", { apiKey: reader.apiKey });
    expect(status).toBe(200);
    expect(body.period).toBe("24h");
    const ids = body.data.map((entry: { collection: { id: string } }) => entry.collection.id);
    expect(ids.slice(0, 5)).toEqual([hot.id, steady.id, moreSales.id, tiedA.id, tiedB.id]);
    expect(body.data.map((entry: { collection: { slug: string } }) => entry.collection.slug).slice(5)).toEqual(["small-7", "small-6", "small-5", "small-4", "small-3"]);
    const [first, second] = body.data;
    expect(first).toMatchObject({ volume: (5n * ETH + ETH / 2n + 7n).toString(), sales: 2, floorPrice: (ETH / 2n).toString() });
    expect(first.change).toBeCloseTo(4.5, 6);
    expect(second).toMatchObject({ volume: (2n * ETH).toString(), sales: 2, floorPrice: null, change: null });
    expect(first.collection).toMatchObject({ name: "Hot", slug: hot.slug, chainId: 1868 });
  });

  it("narrows the window with period and the list with limit", async () => {
    // No chainId: chain 1868's collections only, the testnet's whale left out.
    const all = await call("/v1/collections/trending?limit=100", { apiKey: reader.apiKey });
    expect(all.body.data).toHaveLength(12);
    expect(all.body.data.every((entry: { collection: { chainId: number } }) => entry.collection.chainId === 1868)).toBe(true);
    const lastHour = await call("/v1/collections/trending?period=1h", { apiKey: reader.apiKey });
    expect(lastHour.body.data.map((entry: { collection: { id: string } }) => entry.collection.id)).toEqual([steady.id]);
    const top1 = await call("/v1/collections/trending?period=7d&limit=1", { apiKey: reader.apiKey });
    expect(top1.body.data).toHaveLength(1);
    expect(top1.body.data[0].volume).toBe((6n * ETH + ETH / 2n + 7n).toString());
    expect(top1.body.period).toBe("7d");
  });

  it("rejects bad parameters", async () => {
    expectEnvelope(await call("/v1/collections/trending?period=2h", { apiKey: reader.apiKey }), 400, "validation_error");
    expectEnvelope(await call("/v1/collections/trending?limit=0", { apiKey: reader.apiKey }), 400, "validation_error");
    expectEnvelope(await call("/v1/collections/trending?limit=101", { apiKey: reader.apiKey }), 400, "validation_error");
    expectEnvelope(await call("/v1/collections/trending?limit=0x5", { apiKey: reader.apiKey }), 400, "validation_error");
    expectEnvelope(await call("/v1/collections/trending?chainId=10", { apiKey: reader.apiKey }), 400, "unsupported_chain");
  });
});

describe("GET /v1/transactions", () => {
  let mine: TestProject;
  let theirs: TestProject;
  let pending: Awaited<ReturnType<typeof seedTransaction>>;
  let confirmed: Awaited<ReturnType<typeof seedTransaction>>;
  let failed: Awaited<ReturnType<typeof seedTransaction>>;
  let foreign: Awaited<ReturnType<typeof seedTransaction>>;

  beforeAll(async () => {
    mine = await createTestProject("Tx owner");
    theirs = await createTestProject("Tx stranger");
    const t0 = Date.now() - 10_000;
    pending = await seedTransaction(mine.id, { createdAt: new Date(t0), updatedAt: new Date(t0) });
    confirmed = await seedTransaction(mine.id, {
      status: "confirmed",
      gasUsed: "21000",
      gasPrice: "1000000000",
      totalGasFee: "21000000000000",
      createdAt: new Date(t0 + 1000),
    });
    failed = await seedTransaction(mine.id, { status: "failed", errorMessage: "dropped by the node", createdAt: new Date(t0 + 2000) });
    foreign = await seedTransaction(theirs.id);
  });

  it("shows the seed fields, gas null while pending and set once mined", async () => {
    const { status, body } = await call(`/v1/transactions/${pending.id}`, { apiKey: mine.apiKey });
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: pending.id, jobId: pending.jobId, status: "pending", projectId: mine.id, chainId: 1868, value: "1", data: "0x" });
    expect(body).toMatchObject({ gasUsed: null, gasPrice: null, totalGasFee: null, metadata: null });
    expect(body.from).toMatch(/^0x[0-9a-fA-F]{40}$/);
    const upperCased = await call(`/v1/transactions/${pending.id.toUpperCase()}`, { apiKey: mine.apiKey });
    expect(upperCased.body.id).toBe(pending.id);
    const mined = await call(`/v1/transactions/${confirmed.id}`, { secretKey: mine.secretKey });
    expect(mined.body).toMatchObject({ status: "confirmed", gasUsed: "21000", gasPrice: "1000000000", totalGasFee: "21000000000000" });
  });

  it("lists the project's own transactions newest first, filtered by status", async () => {
    const all = await call("/v1/transactions", { apiKey: mine.apiKey });
    expect(all.body.data.map((tx: { id: string }) => tx.id)).toEqual([failed.id, confirmed.id, pending.id]);
    expect(all.body.pagination).toEqual({ total: 3, page: 1, limit: 20 });
    const onlyFailed = await call("/v1/transactions?status=failed", { apiKey: mine.apiKey });
    expect(onlyFailed.body.data).toHaveLength(1);
    expect(onlyFailed.body.data[0]).toMatchObject({ status: "failed", errorMessage: "dropped by the node" });
    const paged = await call("/v1/transactions?limit=2&page=2", { apiKey: mine.apiKey });
    expect(paged.body.data.map((tx: { id: string }) => tx.id)).toEqual([pending.id]);
  });

  it("hides other projects' transactions", async () => {
    expectEnvelope(await call(`/v1/transactions/${foreign.id}`, { apiKey: mine.apiKey }), 404, "not_found");
    const list = await call("/v1/transactions", { apiKey: mine.apiKey });
    expect(list.body.data.map((tx: { id: string }) => tx.id)).not.toContain(foreign.id);
  });

  it("rejects bad parameters", async () => {
    expectEnvelope(await call("/v1/transactions?status=done", { apiKey: mine.apiKey }), 400, "validation_error");
    expectEnvelope(await call("/v1/transactions?page=-2", { apiKey: mine.apiKey }), 400, "validation_error");
    expectEnvelope(await call("/v1/transactions/xyz", { apiKey: mine.apiKey }), 400, "validation_error");
  });
});
