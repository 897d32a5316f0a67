import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { padPrice, seedAsset, seedCollection, seedListing, seedOwnership, setBestListing, uniqueAddress } from "../fixtures/seed";
import { call, expectEnvelope } from "../helpers/http";
import { sweepExpired } from "../../src/services/indexer/sweep";
import { createTestProject, type TestProject } from "../helpers/projects";

let reader: TestProject;
let verified: Awaited<ReturnType<typeof seedCollection>>;
let plain: Awaited<ReturnType<typeof seedCollection>>;
const holder = uniqueAddress();

const ids = (body: { data: { tokenId: string }[] }) => body.data.map((asset) => asset.tokenId);
const explore = (query: string) => call(`/v1/assets/explore?${query}`, { apiKey: reader.apiKey });

beforeAll(async () => {
  reader = await createTestProject("Reader");
  verified = await seedCollection({ name: "Verified Apes", isVerified: true });
  plain = await seedCollection({ name: "Plain Cats" });
  const start = Date.UTC(2026, 1, 1);
  // verified: tokens 1..4 (2 and 3 listed, 4 listed but expired); plain: tokens 11..12 (12 held by `holder`).
  for (const [collection, tokenId, offset] of [
    [verified, "1", 0],
    [verified, "2", 1],
    [verified, "3", 2],
    [verified, "4", 3],
    [plain, "11", 4],
    [plain, "12", 5],
  ] as const) {
    await seedAsset(collection, tokenId, {
      name: collection === verified ? `Golden Ape ${tokenId}` : `Sleepy Cat ${tokenId}`,
      nameLower: (collection === verified ? `Golden Ape ${tokenId}` : `Sleepy Cat ${tokenId}`).toLowerCase(),
      createdAt: new Date(start + offset * 1000),
    });
  }
});

async function listAt(collection: typeof verified, tokenId: string, price: bigint, overrides = {}) {
  const asset = { chainId: 1868, contractAddress: collection.contractAddress, tokenId, id: "", collectionId: collection.id, schema: "ERC721" as const };
  const { db } = await import("../fixtures/seed");
  const { assets } = await import("../../src/db/schema");
  const { and, eq } = await import("drizzle-orm");
  const row = await db()
    .select()
    .from(assets)
    .where(and(eq(assets.contractAddress, collection.contractAddress), eq(assets.tokenId, tokenId)))
    .get();
  const listing = await seedListing({ ...asset, id: row!.id }, price, overrides);
  await setBestListing({ ...asset, id: row!.id }, listing);
  return listing;
}

describe("GET /v1/assets/explore", () => {
  beforeAll(async () => {
    await listAt(verified, "2", 3_000_000_000_000_000n);
    await listAt(verified, "3", 1_000_000_000_000_000n);
    await listAt(verified, "4", 500n, { endTime: new Date(Date.now() - 1000) });
    const { db } = await import("../fixtures/seed");
    const { assets } = await import("../../src/db/schema");
    const { and, eq } = await import("drizzle-orm");
    const held = await db().select().from(assets).where(and(eq(assets.contractAddress, plain.contractAddress), eq(assets.tokenId, "12"))).get();
    await seedOwnership(held!, holder);
  });

  it("returns assets newest first with collection, best listing and pagination", async () => {
    const { status, body } = await explore(`contractAddress=${verified.contractAddress}`);
    expect(status).toBe(200);
    expect(ids(body)).toEqual(["4", "3", "2", "1"]);
    expect(body.pagination).toEqual({ total: 4, page: 1, limit: 20 });
    const three = body.data[1];
    expect(three.collection).toMatchObject({ id: verified.id, slug: verified.slug, name: "Verified Apes", isVerified: true, chainId: 1868 });
    expect(three.bestListing).toMatchObject({ unitPrice: "1000000000000000", priceSymbol: "ETH", quantity: "1" });
    expect(three.bestListing.offerer).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(three.contractAddress.toLowerCase()).toBe(verified.contractAddress);
    expect(body.data[3].bestListing).toBeNull();
    // An expired best listing is never shown.
    expect(body.data[0].bestListing).toBeNull();
  });

  it("filters by verification, listings, owner and case-insensitive name", async () => {
    const contracts = `&chainId=1868`;
    expect(ids((await explore(`isVerified=true${contracts}&limit=100`)).body)).toEqual(["4", "3", "2", "1"]);
    expect(ids((await explore(`isVerified=false&contractAddress=${plain.contractAddress}`)).body)).toEqual(["12", "11"]);
    expect(ids((await explore(`hasListings=true&contractAddress=${verified.contractAddress}`)).body)).toEqual(["4", "3", "2"]);
    expect(ids((await explore(`hasListings=false&contractAddress=${verified.contractAddress}`)).body)).toEqual(["1"]);
    expect(ids((await explore(`ownerAddress=${holder.toUpperCase().replace("0X", "0x")}`)).body)).toEqual(["12"]);
    expect(ids((await explore(`search=SLEEPY%20cat`)).body)).toEqual(["12", "11"]);
    expect(ids((await explore(`search=%25`)).body)).toEqual([]);
  });

  it("searches names by substring: 3+ characters through the trigram index, shorter terms by LIKE, query syntax as plain text", async () => {
    const quoted = await seedCollection({ name: "Quoted" });
    const asset = await seedAsset(quoted, "1", { name: 'The "Best" 100% Cat_', nameLower: 'the "best" 100% cat_' });
    const inQuoted = (term: string) => explore(`contractAddress=${quoted.contractAddress}&search=${encodeURIComponent(term)}`);
    // Inside words and across the space, in both indexes' cases.
    expect(ids((await explore(`search=${encodeURIComponent("EEPY C")}`)).body)).toEqual(["12", "11"]);
    expect(ids((await explore(`search=${encodeURIComponent("at 1")}`)).body)).toEqual(["12", "11"]);
    expect(ids((await explore(`search=pe&contractAddress=${verified.contractAddress}`)).body)).toEqual(["4", "3", "2", "1"]);
    expect((await explore(`search=${encodeURIComponent("cat 12")}`)).body.pagination.total).toBe(1);
    // Quotes, LIKE wildcards and FTS operators are matched as the characters they are.
    for (const term of ['"best"', "100%", "cat_", '"', "%", "_"]) expect(ids((await inQuoted(term)).body), term).toEqual(["1"]);
    for (const term of ["best OR nothing", "NEAR(best cat)", "best*", "cat AND best", "^the", "100_"]) {
      const answer = await inQuoted(term);
      expect(answer.status, term).toBe(200);
      expect(ids(answer.body), term).toEqual([]);
    }
    // The index, kept by the insert trigger, is what answers 3+ characters; LIKE the rest.
    const indexed = () => env.DB.prepare("select count(*) as n from assets_search where asset_id = ?").bind(asset.id).first<{ n: number }>();
    expect((await indexed())?.n).toBe(1);
    await env.DB.prepare("delete from assets_search where asset_id = ?").bind(asset.id).run();
    expect(ids((await inQuoted("best")).body)).toEqual([]);
    expect(ids((await inQuoted("be")).body)).toEqual(["1"]);
  });

  it("sorts by price (listed first) and by age", async () => {
    const byPriceAsc = await explore(`contractAddress=${verified.contractAddress}&sortBy=price:ASC`);
    expect(ids(byPriceAsc.body)).toEqual(["4", "3", "2", "1"]);
    // Pages continue from the listed assets into the unlisted ones.
    const pages = await Promise.all([1, 2, 3].map((page) => explore(`contractAddress=${verified.contractAddress}&sortBy=price:ASC&limit=2&page=${page}`)));
    expect(pages.map((p) => ids(p.body))).toEqual([["4", "3"], ["2", "1"], []]);
    expect(pages[1]!.body.pagination).toEqual({ total: 4, page: 2, limit: 2 });
    const byPriceDesc = await explore(`contractAddress=${verified.contractAddress}&sortBy=price:DESC`);
    expect(ids(byPriceDesc.body)).toEqual(["2", "3", "4", "1"]);
    const oldest = await explore(`contractAddress=${verified.contractAddress}&sortBy=createdAt:ASC`);
    expect(ids(oldest.body)).toEqual(["1", "2", "3", "4"]);
  });

  it("ranks native prices before token prices in both directions, unlisted last", async () => {
    // Raw amounts of different currencies do not compare: 100 units of a token are not cheaper than 1 ETH.
    const mixed = await seedCollection({ name: "Mixed Currencies" });
    const token = uniqueAddress();
    for (const [tokenId, offset] of [["21", 0], ["22", 1], ["23", 2], ["24", 3], ["25", 4]] as const) {
      await seedAsset(mixed, tokenId, { createdAt: new Date(Date.UTC(2026, 2, 1) + offset * 1000) });
    }
    await listAt(mixed, "21", 2_000_000_000_000_000_000n);
    await listAt(mixed, "22", 100n, { currencyAddress: token, priceSymbol: "TKN" });
    await listAt(mixed, "23", 500_000_000_000_000_000_000n, { currencyAddress: token, priceSymbol: "TKN" });
    await listAt(mixed, "24", 1_000_000_000_000_000_000n);
    const sorted = async (sortBy: string, more = "") => ids((await explore(`contractAddress=${mixed.contractAddress}&sortBy=${sortBy}${more}`)).body);

    expect(await sorted("price:ASC")).toEqual(["24", "21", "22", "23", "25"]);
    expect(await sorted("price:DESC")).toEqual(["21", "24", "23", "22", "25"]);
    expect(await sorted("price:DESC", "&hasListings=true")).toEqual(["21", "24", "23", "22"]);
    expect(await sorted("price:ASC", "&hasListings=true")).toEqual(["24", "21", "22", "23"]);
    // Pages cross from native to token prices to unlisted assets without losing or repeating one.
    const pages = await Promise.all([1, 2, 3].map((page) => sorted("price:DESC", `&limit=2&page=${page}`)));
    expect(pages).toEqual([["21", "24"], ["23", "22"], ["25"]]);
    const threes = await Promise.all([1, 2].map((page) => sorted("price:DESC", `&limit=3&page=${page}`)));
    expect(threes).toEqual([["21", "24", "23"], ["22", "25"]]);
    expect(await sorted("price:ASC", "&limit=3&page=2")).toEqual(["23", "25"]);
  });

  it("pages", async () => {
    const page2 = await explore(`contractAddress=${verified.contractAddress}&page=2&limit=3`);
    expect(ids(page2.body)).toEqual(["1"]);
    expect(page2.body.pagination).toEqual({ total: 4, page: 2, limit: 3 });
  });

  it("rejects bad input with the field named", async () => {
    const cases: [string, string][] = [
      ["page=0", "query.page"],
      ["page=-1", "query.page"],
      ["page=1.5", "query.page"],
      ["limit=101", "query.limit"],
      ["limit=abc", "query.limit"],
      ["chainId=abc", "query.chainId"],
      // Other spellings Number() reads as the same value: one value has one URL (decision 70).
      ["limit=0x14", "query.limit"],
      ["limit=1e1", "query.limit"],
      ["page=2.0", "query.page"],
      ["page=%202", "query.page"],
      ["page=02", "query.page"],
      ["chainId=0x74c", "query.chainId"],
      ["chainId=1868.0", "query.chainId"],
      ["contractAddress=0xZZ", "query.contractAddress"],
      ["ownerAddress=0x1234", "query.ownerAddress"],
      ["isVerified=yes", "query.isVerified"],
      ["sortBy=name:ASC", "query.sortBy"],
      ["colour=red", "query.colour"],
      // NUL ends FTS5's input mid-phrase ("unterminated string"); no name holds control characters.
      ["search=abc%00", "query.search"],
      ["search=a%00", "query.search"],
      ["search=cat%1B%5B0m", "query.search"],
    ];
    for (const [query, path] of cases) {
      const error = expectEnvelope(await explore(query), 400, "validation_error");
      expect(error.details?.map((d) => d.path), query).toContain(path);
    }
    expectEnvelope(await explore("chainId=5"), 400, "unsupported_chain");
  });
});

describe("GET /v1/assets/{chainId}/{contractAddress}/{tokenId}", () => {
  it("returns one asset with its relations, address in any case", async () => {
    const upper = `0x${verified.contractAddress.slice(2).toUpperCase()}`;
    const { status, body } = await call(`/v1/assets/1868/${upper}/3`, { apiKey: reader.apiKey });
    expect(status).toBe(200);
    expect(body).toMatchObject({ tokenId: "3", schema: "ERC721", name: "Golden Ape 3", collection: { id: verified.id } });
    expect(body.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(padPrice(body.bestListing.unitPrice)).toBe(padPrice(1_000_000_000_000_000n));
  });

  it("404s unknown tokens and 400s malformed parts", async () => {
    expectEnvelope(await call(`/v1/assets/1868/${verified.contractAddress}/999`, { apiKey: reader.apiKey }), 404, "not_found");
    expectEnvelope(await call(`/v1/assets/1868/0x12/1`, { apiKey: reader.apiKey }), 400, "validation_error");
    expectEnvelope(await call(`/v1/assets/1868/${verified.contractAddress}/-1`, { apiKey: reader.apiKey }), 400, "validation_error");
    expectEnvelope(await call(`/v1/assets/abc/${verified.contractAddress}/1`, { apiKey: reader.apiKey }), 400, "validation_error");
    const hexChain = expectEnvelope(await call(`/v1/assets/0x74c/${verified.contractAddress}/3`, { apiKey: reader.apiKey }), 400, "validation_error");
    expect(hexChain.details?.[0]).toMatchObject({ path: "path.chainId", message: "must be a decimal integer" });
    expectEnvelope(await call(`/v1/assets/77/${verified.contractAddress}/1`, { apiKey: reader.apiKey }), 400, "unsupported_chain");
  });

  it("shows the next live listing once the recorded best one has expired, before the sweep records it", async () => {
    const collection = await seedCollection({ name: "Expiring Owls" });
    const asset = await seedAsset(collection, "7");
    // Long enough for the first read on a slow machine; the test then waits it out.
    const soon = await seedListing(asset, 1_000n, { endTime: new Date(Date.now() + 3_000) });
    const dearer = await seedListing(asset, 2_000n);
    await setBestListing(asset, soon);
    const read = async () => (await call(`/v1/assets/1868/${collection.contractAddress}/7`, { apiKey: reader.apiKey })).body;

    expect((await read()).bestListing.orderHash).toBe(soon.orderHash);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, soon.endTime.getTime() - Date.now()) + 100));
    expect((await read()).bestListing).toMatchObject({ orderHash: dearer.orderHash, unitPrice: "2000" });
    const listed = await call(`/v1/assets/explore?contractAddress=${collection.contractAddress}`, { apiKey: reader.apiKey });
    expect(listed.body.data[0].bestListing.orderHash).toBe(dearer.orderHash);
    // The order itself reads as expired, though its row still says active.
    const order = await call(`/v1/orders/${soon.orderHash}`, { apiKey: reader.apiKey });
    expect([order.status, order.body.status]).toEqual([200, "expired"]);
  });

  it("passes over a cheaper listing that has not started, at read time and in the sweep (decision 45)", async () => {
    const collection = await seedCollection({ name: "Patient Owls" });
    const asset = await seedAsset(collection, "8");
    const recorded = await seedListing(asset, 500n, { endTime: new Date(Date.now() - 1_000) });
    const notYet = await seedListing(asset, 1_000n, { startTime: new Date(Date.now() + 3_600_000), startPending: true });
    const live = await seedListing(asset, 2_000n);
    await setBestListing(asset, recorded);
    const read = async () => (await call(`/v1/assets/1868/${collection.contractAddress}/8`, { apiKey: reader.apiKey })).body;

    // The recorded best has expired: the read-time fallback must skip the unstarted one.
    expect((await read()).bestListing).toMatchObject({ orderHash: live.orderHash });
    // The sweep recomputes the token (its recorded best expired) and must skip it too.
    await sweepExpired(env.DB, Date.now());
    const stored = await env.DB.prepare("select best_order_hash from assets where id = ?").bind(asset.id).first<{ best_order_hash: string }>();
    expect(stored?.best_order_hash).toBe(live.orderHash);
    expect(stored?.best_order_hash).not.toBe(notYet.orderHash);
  });
});
