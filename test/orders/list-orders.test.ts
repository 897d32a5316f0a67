// GET /v1/orders (decision 106): a collection's, a token's or an offerer's orders, cheapest first,
// with statuses as the single-order read shows them. Seeded straight into D1: the order checks
// are POST /v1/orders's (listings.test.ts), not this read's.
import { describe, expect, it } from "vitest";
import type { assets } from "../../src/db/schema";
import { seedListing, uniqueAddress } from "../fixtures/seed";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";

const token = (contractAddress: string, tokenId: string, chainId = 1868) => ({ chainId, contractAddress, tokenId }) as typeof assets.$inferInsert;
const hour = 3_600_000;
const hashes = (body: { data: { orderHash: string }[] }) => body.data.map((order) => order.orderHash);
let project: TestProject;
const list = async (query: string) => {
  project ??= await createTestProject("Order list");
  return call(`/v1/orders?${query}`, { apiKey: project.apiKey });
};

describe("GET /v1/orders", () => {
  it("lists a collection's live orders cheapest first, native prices before token prices in both directions, and pages them", async () => {
    const contract = uniqueAddress();
    const usdc = uniqueAddress();
    const cheap = await seedListing(token(contract, "1"), 100n);
    const dear = await seedListing(token(contract, "2"), 300n);
    const middle = await seedListing(token(contract, "1"), 200n);
    const inToken = await seedListing(token(contract, "3"), 5n, { currencyAddress: usdc, priceSymbol: "USDC" });
    // Not live: filled, cancelled, past its end (the sweep has not recorded it), another chain, another collection.
    await seedListing(token(contract, "4"), 50n, { status: "filled" });
    const cancelled = await seedListing(token(contract, "4"), 60n, { status: "cancelled" });
    const lapsed = await seedListing(token(contract, "5"), 70n, { endTime: new Date(Date.now() - hour) });
    const recordedExpired = await seedListing(token(contract, "6"), 80n, { status: "expired", endTime: new Date(Date.now() - hour) });
    await seedListing(token(contract, "1", 1946), 10n);
    await seedListing(token(uniqueAddress(), "1"), 10n);

    const ascending = await list(`contractAddress=${contract}`);
    expect(ascending.status, JSON.stringify(ascending.body)).toBe(200);
    expect(hashes(ascending.body)).toEqual([cheap, middle, dear, inToken].map((order) => order.orderHash));
    expect(ascending.body.pagination).toEqual({ total: 4, page: 1, limit: 20 });
    expect(ascending.body.data[0]).toMatchObject({ status: "active", chainId: 1868, tokenId: "1", unitPrice: "100", signature: cheap.signature });
    expect(ascending.body.data[0].parameters.offerer.toLowerCase()).toBe(cheap.offerer);

    const descending = await list(`contractAddress=${contract}&sortBy=price:DESC`);
    expect(hashes(descending.body)).toEqual([dear, middle, cheap, inToken].map((order) => order.orderHash));
    expect(descending.body.pagination.total).toBe(4);
    // A page that straddles the two currency classes, and one past them.
    const second = await list(`contractAddress=${contract}&sortBy=price:DESC&page=2&limit=2`);
    expect(hashes(second.body)).toEqual([cheap, inToken].map((order) => order.orderHash));
    const third = await list(`contractAddress=${contract}&sortBy=price:DESC&page=2&limit=3`);
    expect(hashes(third.body)).toEqual([inToken.orderHash]);
    expect(hashes((await list(`contractAddress=${contract}&page=3&limit=2`)).body)).toEqual([]);

    // Other statuses as recorded: an active order past its end is left out of `active` at once (its
    // own read says expired) and listed as expired once the sweep has recorded it.
    const expired = await list(`contractAddress=${contract}&status=expired`);
    expect(hashes(expired.body)).toEqual([recordedExpired.orderHash]);
    expect(expired.body.data[0].status).toBe("expired");
    expect((await call(`/v1/orders/${lapsed.orderHash}`, { apiKey: project.apiKey })).body.status).toBe("expired");
    expect(hashes((await list(`contractAddress=${contract}&status=cancelled`)).body)).toEqual([cancelled.orderHash]);
  });

  it("orders equal prices by hash, a descending list being the ascending one reversed, and pages through them once each", async () => {
    const contract = uniqueAddress();
    const sameAsk = await Promise.all(["1", "2", "3", "4"].map((tokenId) => seedListing(token(contract, tokenId), 42n)));
    const byHash = sameAsk.map((order) => order.orderHash).sort();

    expect(hashes((await list(`contractAddress=${contract}`)).body)).toEqual(byHash);
    expect(hashes((await list(`contractAddress=${contract}&sortBy=price:DESC`)).body)).toEqual([...byHash].reverse());
    const paged: string[] = [];
    for (const pageNumber of [1, 2, 3, 4]) paged.push(...hashes((await list(`contractAddress=${contract}&sortBy=price:DESC&page=${pageNumber}&limit=1`)).body));
    expect(paged).toEqual([...byHash].reverse());
  });

  it("narrows to one token, to one offerer across collections, or both", async () => {
    const [contract, other] = [uniqueAddress(), uniqueAddress()];
    const offerer = uniqueAddress();
    const first = await seedListing(token(contract, "7"), 20n, { offerer });
    const second = await seedListing(token(contract, "7"), 10n);
    await seedListing(token(contract, "8"), 5n, { offerer });
    const elsewhere = await seedListing(token(other, "1"), 1n, { offerer });

    expect(hashes((await list(`contractAddress=${contract}&tokenId=7`)).body)).toEqual([second, first].map((order) => order.orderHash));
    const byOfferer = await list(`offerer=${offerer.toUpperCase().replace("0X", "0x")}`);
    expect(byOfferer.body.pagination.total).toBe(3);
    expect(hashes(byOfferer.body)[0]).toBe(elsewhere.orderHash);
    expect(hashes((await list(`offerer=${offerer}&contractAddress=${contract}&tokenId=7`)).body)).toEqual([first.orderHash]);
  });

  it("refuses a query that names no collection or offerer, a token without its collection, unknown parameters and chains", async () => {
    const contract = uniqueAddress();
    expect(expectEnvelope(await list("status=active"), 400, "validation_error").details).toEqual([
      { path: "query.contractAddress", message: "contractAddress or offerer is required" },
    ]);
    expect(expectEnvelope(await list(`offerer=${contract}&tokenId=1`), 400, "validation_error").details?.[0]?.path).toBe("query.tokenId");
    expect(expectEnvelope(await list(`contractAddress=${contract}&tokenId=01`), 400, "validation_error").details?.[0]?.path).toBe("query.tokenId");
    expect(expectEnvelope(await list(`contractAddress=${contract}&sortBy=createdAt:DESC`), 400, "validation_error").details?.[0]?.path).toBe("query.sortBy");
    expect(expectEnvelope(await list(`contractAddress=${contract}&status=open`), 400, "validation_error").details?.[0]?.path).toBe("query.status");
    expectEnvelope(await list(`contractAddress=${contract}&maker=${contract}`), 400, "validation_error");
    expectEnvelope(await list(`contractAddress=${contract}&chainId=999`), 400, "unsupported_chain");
    expect((await call(`/v1/orders?contractAddress=${contract}`)).status).toBe(401);
  });
});
