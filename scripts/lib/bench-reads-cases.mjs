// The read cases of `npm run bench:reads`. Each case draws its parameters at random per request
// (a random token, collection, owner or search term) and turns them into both the HTTP path the
// service gets and the SQL the floor runs, so both sides see the same mix.
import { SEARCH_TERMS } from "./bench-reads-data.mjs";
import { assetSql, exploreSql } from "./bench-reads-sql.mjs";

export const TARGET_ASSET_MS = 10;
export const TARGET_EXPLORE_MS = 25;
export const TARGET_RATIO = 3;

const pick = (list) => list[Math.floor(Math.random() * list.length)];

function explorePath(query) {
  const params = new URLSearchParams();
  for (const key of ["chainId", "contractAddress", "ownerAddress", "search", "isVerified", "hasListings"]) {
    if (query[key] !== undefined) params.set(key, String(query[key]));
  }
  // The service's defaults (page 1, limit 20, createdAt:DESC) are sent only when not default,
  // as a client would.
  if (query.page !== 1) params.set("page", String(query.page));
  if (query.limit !== 20) params.set("limit", String(query.limit));
  if (query.sortBy !== "createdAt:DESC") params.set("sortBy", query.sortBy);
  const qs = params.toString();
  return `/v1/assets/explore${qs ? `?${qs}` : ""}`;
}

function explore(name, draw) {
  return {
    name: `explore: ${name}`,
    kind: "explore",
    target: TARGET_EXPLORE_MS,
    draw: () => ({ page: 1, limit: 20, sortBy: "createdAt:DESC", ...draw() }),
    path: explorePath,
    statements: (query) => exploreSql(query),
  };
}

/** `dataset` is createDataset()'s result: sample tokens, owners, contracts and the row counts. */
export function buildCases(dataset) {
  const { samples, size, chainIds } = dataset;
  const cases = [
    {
      name: "asset by chain/contract/token",
      kind: "asset",
      target: TARGET_ASSET_MS,
      draw: () => {
        const [chainId, contractAddress, tokenId] = pick(samples.tokens);
        return { chainId, contractAddress, tokenId };
      },
      path: (q) => `/v1/assets/${q.chainId}/${q.contractAddress}/${q.tokenId}`,
      statements: (q) => assetSql(q),
    },
    explore("no filter", () => ({})),
    explore("chainId", () => ({ chainId: pick(chainIds) })),
    explore("contractAddress", () => ({ contractAddress: pick(samples.contracts) })),
    explore("ownerAddress", () => ({ ownerAddress: pick(samples.owners) })),
    explore("search", () => ({ search: pick(SEARCH_TERMS) })),
    explore("isVerified=true", () => ({ isVerified: true })),
    explore("hasListings=true", () => ({ hasListings: true })),
    explore("sortBy=price:ASC", () => ({ sortBy: "price:ASC" })),
    explore("sortBy=price:DESC", () => ({ sortBy: "price:DESC" })),
    explore("sortBy=createdAt:ASC", () => ({ sortBy: "createdAt:ASC" })),
  ];
  // Deep pages only while they still hold rows (they do at the default 100k assets).
  for (const page of [500, 4000]) {
    if ((page - 1) * 20 < size) cases.push(explore(`page=${page}&limit=20`, () => ({ page })));
  }
  cases.push(explore("chainId + isVerified + hasListings, price:ASC", () => ({ chainId: chainIds[0], isVerified: true, hasListings: true, sortBy: "price:ASC" })));
  // A narrow filter beside broad ones (decision 34: the broad terms must not drive the plan).
  cases.push(
    explore("chainId + contractAddress + isVerified, price:ASC", () => {
      const c = pick(dataset.collections);
      return { chainId: c.chainId, contractAddress: c.contractAddress, isVerified: c.isVerified, sortBy: "price:ASC" };
    }),
  );
  return cases;
}

/**
 * Not a target: what a request costs with no D1 read behind it (auth through the KV cache, query
 * validation, the error envelope), so the report can tell Worker overhead from SQL.
 */
export const overheadProbe = {
  name: "probe: auth + validation only (400, no D1 query)",
  kind: "probe",
  expectStatus: 400,
  draw: () => ({}),
  path: () => "/v1/assets/explore?chainId=999",
  statements: () => [],
};
