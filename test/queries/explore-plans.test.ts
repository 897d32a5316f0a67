// Explore pages that combine a broad filter (chain, verified, unlisted) with a narrow one (a
// contract) read the narrow filter's rows, not the chain's (decision 34). The statements the
// service sends are recorded and replayed on D1 for its rows_read.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { exploreAssets, type ExploreQuery } from "../../src/services/assets/read-assets";
import { seedAsset, seedCollection } from "../fixtures/seed";
import { recordingD1, rowsReadBy } from "../helpers/d1-recorder";

const BULK = 400;
/** Far below BULK: a 20-row page with its joins, from the rows it needs. */
const PAGE_ROWS = 120;

let small: Awaited<ReturnType<typeof seedCollection>>;

/** The page statements exploreAssets sent (counts left out: a count reads every match by nature). */
async function pageRowsRead(query: Partial<ExploreQuery>): Promise<{ ids: string[]; rowsRead: number[] }> {
  const { d1, statements } = recordingD1();
  const { data } = await exploreAssets({ env, db: createDb(d1) }, { page: 1, limit: 20, sortBy: "createdAt:DESC", ...query });
  const rowsRead = [];
  for (const statement of statements.filter((s) => !s.sql.startsWith("select count("))) rowsRead.push(await rowsReadBy(statement));
  return { ids: data.map((asset) => asset.tokenId), rowsRead };
}

beforeAll(async () => {
  // The small collection's three tokens are the chain's oldest; BULK newer unlisted assets follow.
  small = await seedCollection({ name: "Small", isVerified: true });
  for (const tokenId of ["1", "2", "3"]) await seedAsset(small, tokenId, { createdAt: new Date(Date.UTC(2020, 0, Number(tokenId))) });
  const big = await seedCollection({ name: "Big" });
  await env.DB.prepare(
    `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?1)
     insert into assets (id, chain_id, contract_address, token_id, collection_id, schema, name, name_lower, is_verified, created_at, updated_at)
     select lower(hex(randomblob(16))), 1868, ?2, cast(i as text), ?3, 'ERC721', 'Big ' || i, 'big ' || i, 1, 1700000000000 + i, 1700000000000 + i from n`,
  )
    .bind(BULK, big.contractAddress, big.id)
    .run();
});

describe("explore with a contract beside broad filters", () => {
  for (const [name, query] of [
    ["chainId", { chainId: 1868 }],
    ["chainId + isVerified, price:ASC", { chainId: 1868, isVerified: true, sortBy: "price:ASC" }],
    ["chainId + hasListings=false", { chainId: 1868, hasListings: false }],
  ] as const) {
    it(`${name}: reads the contract's rows`, async () => {
      const { ids, rowsRead } = await pageRowsRead({ contractAddress: small.contractAddress, ...query });

      expect(ids).toEqual(["3", "2", "1"]);
      expect(rowsRead.length).toBeGreaterThan(0);
      expect(rowsRead.length).toBeGreaterThan(0);
    for (const rows of rowsRead) expect(rows).toBeLessThan(PAGE_ROWS);
    });
  }
});

describe("explore of unlisted assets", () => {
  it("walks the newest assets instead of sorting every unlisted one", async () => {
    const { ids, rowsRead } = await pageRowsRead({ hasListings: false });

    expect(ids).toHaveLength(20);
    expect(ids[0]).toBe(String(BULK));
    expect(rowsRead.length).toBeGreaterThan(0);
    for (const rows of rowsRead) expect(rows).toBeLessThan(PAGE_ROWS);
  });
});
