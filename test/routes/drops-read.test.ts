import { beforeAll, describe, expect, it } from "vitest";
import { seedDrop, uniqueAddress } from "../fixtures/seed";
import { BASE, call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";

let owner: TestProject;
let other: TestProject;
const ownDropIds: string[] = [];

beforeAll(async () => {
  owner = await createTestProject("Drop owner");
  other = await createTestProject("Someone else");
  // 25 drops one second apart, oldest first, so createdAt order is unambiguous.
  const start = Date.UTC(2026, 0, 1);
  for (let i = 0; i < 25; i++) {
    const row = await seedDrop(owner.id, { name: `Drop ${i}`, createdAt: new Date(start + i * 1000), updatedAt: new Date(start + i * 1000) });
    ownDropIds.push(row.id);
  }
  await seedDrop(other.id, { name: "Other's drop", createdAt: new Date(start + 100_000) });
});

describe("GET /v1/drops (nestjs-paginate)", () => {
  it("pages with meta and absolute links, newest first by default", async () => {
    const { status, body } = await call(`/v1/drops?filter.projectId=${owner.id}`, { apiKey: owner.apiKey });
    expect(status).toBe(200);
    expect(body.data).toHaveLength(20);
    expect(body.data[0].id).toBe(ownDropIds[24]);
    expect(body.meta).toEqual({
      itemsPerPage: 20,
      totalItems: 25,
      currentPage: 1,
      totalPages: 2,
      sortBy: [["createdAt", "DESC"]],
      searchBy: [],
      search: "",
      select: [],
      filter: { projectId: `$eq:${owner.id}` },
    });
    const suffix = `&limit=20&sortBy=createdAt:DESC&filter.projectId=$eq:${owner.id}`;
    expect(body.links).toEqual({
      current: `${BASE}/v1/drops?page=1${suffix}`,
      next: `${BASE}/v1/drops?page=2${suffix}`,
      last: `${BASE}/v1/drops?page=2${suffix}`,
    });

    const second = await call(body.links.next.replace(BASE, ""), { apiKey: owner.apiKey });
    expect(second.body.data.map((d: { id: string }) => d.id)).toEqual(ownDropIds.slice(0, 5).reverse());
    expect(second.body.links.first).toBe(`${BASE}/v1/drops?page=1${suffix}`);
    expect(second.body.links.previous).toBe(`${BASE}/v1/drops?page=1${suffix}`);
    expect(second.body.links.next).toBeUndefined();
  });

  it("falls back on invalid paging and sort, caps limit at 100", async () => {
    const invalid = await call(`/v1/drops?projectId=${owner.id}&page=abc&limit=-5&sortBy=name:ASC`, { apiKey: owner.apiKey });
    expect(invalid.status).toBe(200);
    expect(invalid.body.meta).toMatchObject({ currentPage: 1, itemsPerPage: 20, sortBy: [["createdAt", "DESC"]] });

    const capped = await call(`/v1/drops?projectId=${owner.id}&limit=1000`, { apiKey: owner.apiKey });
    expect(capped.body.meta.itemsPerPage).toBe(100);
    expect(capped.body.data).toHaveLength(25);
    for (const limit of ["1000000000", "99999999999999999999999"]) {
      const huge = await call(`/v1/drops?projectId=${owner.id}&limit=${limit}`, { apiKey: owner.apiKey });
      expect(huge.body.meta.itemsPerPage, limit).toBe(100);
    }
    for (const [page, limit] of [["0", "0"], ["+2", "+5"], ["2.0", "5.5"], [" 2", "1e2"]]) {
      const odd = await call(`/v1/drops?projectId=${owner.id}&page=${encodeURIComponent(page!)}&limit=${encodeURIComponent(limit!)}`, { apiKey: owner.apiKey });
      expect(odd.body.meta, `${page} ${limit}`).toMatchObject({ currentPage: 1, itemsPerPage: 20 });
    }
  });

  it("reads a repeated page or limit as its first value and a repeated filter as one, as nestjs-paginate does", async () => {
    const repeated = await call(`/v1/drops?projectId=${owner.id}&page=2&page=1&limit=10&limit=500`, { apiKey: owner.apiKey });
    expect(repeated.status, JSON.stringify(repeated.body)).toBe(200);
    expect(repeated.body.meta).toMatchObject({ currentPage: 2, itemsPerPage: 10, totalItems: 25 });
    expect(repeated.body.data[0].id).toBe(ownDropIds[14]);

    const sameTwice = await call(`/v1/drops?filter.projectId=${owner.id}&filter.projectId=$eq:${owner.id.toUpperCase()}`, { apiKey: owner.apiKey });
    expect(sameTwice.status, JSON.stringify(sameTwice.body)).toBe(200);
    expect(sameTwice.body.meta).toMatchObject({ totalItems: 25, filter: { projectId: `$eq:${owner.id}` } });

    const conflicting = expectEnvelope(await call(`/v1/drops?filter.projectId=${owner.id}&filter.projectId=${other.id}`, { apiKey: owner.apiKey }), 400, "validation_error");
    expect(conflicting.details).toEqual([{ path: "query.filter.projectId", message: "is given more than once with different values" }]);
  });

  it("sorts ascending and honours repeated sortBy in URL order", async () => {
    const asc = await call(`/v1/drops?filter.projectId=$eq:${owner.id}&sortBy=createdAt:ASC&sortBy=createdAt:DESC&limit=3`, {
      apiKey: owner.apiKey,
    });
    expect(asc.body.data.map((d: { id: string }) => d.id)).toEqual(ownDropIds.slice(0, 3));
    expect(asc.body.meta.sortBy).toEqual([["createdAt", "ASC"]]);
  });

  it("is global, but shows the blindbox key only to the owning project", async () => {
    const all = await call("/v1/drops?limit=100", { apiKey: other.apiKey });
    expect(all.body.meta.totalItems).toBe(26);
    const own = all.body.data.find((d: { projectId: string }) => d.projectId === other.id);
    const foreign = all.body.data.find((d: { projectId: string }) => d.projectId === owner.id);
    expect(own.blindboxKey).toMatch(/^0x[0-9a-f]{64}$/);
    expect(foreign.blindboxKey).toBeNull();
  });

  it("lists another project's drop only once deployed; the owner sees its pending and failed ones", async () => {
    const lister = await createTestProject("Undeployed drops");
    const pending = await seedDrop(lister.id, { name: "Still deploying", status: "pending" });
    const failed = await seedDrop(lister.id, { name: "Deploy failed", status: "failed" });
    const deployed = await seedDrop(lister.id, { name: "Live" });
    const listed = async (reader: TestProject) => {
      const page = await call(`/v1/drops?filter.projectId=${lister.id}`, { apiKey: reader.apiKey });
      expect(page.status).toBe(200);
      return { total: page.body.meta.totalItems, ids: page.body.data.map((drop: { id: string }) => drop.id).sort() };
    };
    expect(await listed(other)).toEqual({ total: 1, ids: [deployed.id] });
    expect(await listed(lister)).toEqual({ total: 3, ids: [pending.id, failed.id, deployed.id].sort() });
  });

  it("filters by chain and contract address in any case, returning checksummed addresses", async () => {
    const address = uniqueAddress();
    const drop = await seedDrop(owner.id, { contractAddress: address });
    const upper = `0x${address.slice(2).toUpperCase()}`;
    const { body } = await call(`/v1/drops?filter.contractAddress=${upper}&chainId=1868`, { apiKey: owner.apiKey });
    expect(body.data.map((d: { id: string }) => d.id)).toEqual([drop.id]);
    expect(body.data[0].contractAddress.toLowerCase()).toBe(address);
    expect(body.data[0].contractAddress).not.toBe(address);
  });

  it("returns an empty page beyond the last one", async () => {
    const { body } = await call(`/v1/drops?projectId=${owner.id}&page=9`, { apiKey: owner.apiKey });
    expect(body.data).toEqual([]);
    expect(body.meta).toMatchObject({ currentPage: 9, totalPages: 2 });
    const far = await call(`/v1/drops?projectId=${owner.id}&page=1000000000`, { apiKey: owner.apiKey });
    expect(far.status).toBe(200);
    expect(far.body.data).toEqual([]);
    expect(far.body.meta).toMatchObject({ currentPage: 1_000_000_000, totalPages: 2 });
    const farther = await call(`/v1/drops?projectId=${owner.id}&page=${"9".repeat(30)}`, { apiKey: owner.apiKey });
    expect(farther.status).toBe(200);
    expect(farther.body.data).toEqual([]);
  });

  it("rejects malformed filters with the field named", async () => {
    const badAddress = expectEnvelope(await call("/v1/drops?filter.contractAddress=0x123", { apiKey: owner.apiKey }), 400, "validation_error");
    expect(badAddress.details?.[0]?.path).toBe("query.filter.contractAddress");
    const badChain = expectEnvelope(await call("/v1/drops?chainId=abc", { apiKey: owner.apiKey }), 400, "validation_error");
    expect(badChain.details?.[0]?.path).toBe("query.filter.chainId");
    expectEnvelope(await call("/v1/drops?chainId=999999", { apiKey: owner.apiKey }), 400, "unsupported_chain");
    expectEnvelope(await call("/v1/drops?projectId=nope", { apiKey: owner.apiKey }), 400, "validation_error");
    expectEnvelope(await call("/v1/drops?chainId=$gt:1", { apiKey: owner.apiKey }), 400, "validation_error");
  });

  it("needs a key", async () => {
    expectEnvelope(await call("/v1/drops"), 401, "unauthorized");
    expectEnvelope(await call("/v1/drops", { apiKey: "ak_0000000000000000000000000000000000000000" }), 401, "unauthorized");
    expect((await call("/v1/drops", { secretKey: owner.secretKey })).status).toBe(200);
  });
});

describe("GET /v1/drops/{id}", () => {
  it("returns the project's own drop with its blindbox key", async () => {
    const { status, body } = await call(`/v1/drops/${ownDropIds[0]}`, { apiKey: owner.apiKey });
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: ownDropIds[0], projectId: owner.id, name: "Drop 0", creatorFeeBps: 500 });
    expect(body.blindboxKey).toBe(`0x${"ab".repeat(32)}`);
    expect(body.createdAt).toBe(new Date(Date.UTC(2026, 0, 1)).toISOString());
    // UUIDs are case-insensitive: the same drop, its id as the service writes it.
    const upper = await call(`/v1/drops/${ownDropIds[0]!.toUpperCase()}`, { apiKey: owner.apiKey });
    expect(upper.status).toBe(200);
    expect(upper.body.id).toBe(ownDropIds[0]);
  });

  it("404s another project's drop, unknown ids, and 400s malformed ids", async () => {
    expectEnvelope(await call(`/v1/drops/${ownDropIds[0]}`, { apiKey: other.apiKey }), 404, "not_found");
    expectEnvelope(await call(`/v1/drops/${crypto.randomUUID()}`, { apiKey: owner.apiKey }), 404, "not_found");
    expectEnvelope(await call("/v1/drops/123", { apiKey: owner.apiKey }), 400, "validation_error");
  });
});
