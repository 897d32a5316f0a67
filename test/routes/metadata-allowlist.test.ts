// Whitelist parsing and the allowlist Merkle tree, the allowlist proof endpoint and the metadata
// route. @openzeppelin/merkle-tree does not load in this pool (see src/chain/merkle.ts), so the
// tree is checked against vectors the library produced in Node and against the contract's formula.
import { SELF } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { concat, encodeAbiParameters, getAddress, keccak256, type Hex } from "viem";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { verifyAllowlistProof, type AllowlistTreeDump } from "../../src/chain/merkle";
import { AppError } from "../../src/lib/errors";
import { serviceContext } from "../../src/services/context";
import { allowlistObjectKey, MAX_INLINE_ALLOWLIST_TREE_BYTES, storeAllowlistTree } from "../../src/services/drops/allowlist";
import {
  buildAllowlist,
  findAllowlistEntry,
  MAX_WHITELIST_ENTRIES,
  parseWhitelist,
  type AllowlistEntry,
} from "../../src/services/drops/whitelist";
import { metadataObjectKey, renderTokenMetadata, toOpenSeaMetadata } from "../../src/services/metadata/token-metadata";
import { randomHash, seedAsset, seedCollection, seedDrop, seedTokenMetadata, seedTransaction, uniqueAddress } from "../fixtures/seed";
import { BASE, call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { fund } from "../helpers/chain";
import { recordFetches } from "../helpers/fetch-spy";

const MAX_UINT256 = (2n ** 256n - 1n).toString();

function parseError(text: string): AppError {
  try {
    parseWhitelist(text);
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected parseWhitelist to throw");
}

/** The contract's check, written independently of the library: leaf, then sorted-pair hashing. */
function contractVerifies(root: string, entry: AllowlistEntry, proof: string[]): boolean {
  const encoded = encodeAbiParameters(
    [{ type: "address" }, { type: "uint256" }, { type: "uint256" }],
    [getAddress(entry.address), BigInt(entry.maxClaimable), BigInt(entry.price)],
  );
  let node = keccak256(keccak256(encoded));
  for (const sibling of proof as Hex[]) node = keccak256(BigInt(node) < BigInt(sibling) ? concat([node, sibling]) : concat([sibling, node]));
  return node === root;
}

describe("parseWhitelist", () => {
  it("parses lines with CRLF, blank lines, comments, padding, any-case addresses and leading zeros", () => {
    const a = uniqueAddress();
    const b = uniqueAddress();
    const text = `# address,maxClaimable,price\r\n\r\n  0x${a.slice(2).toUpperCase()} , 2 , 1000000000000000 \r\n   \n#${b},1,0\n${b},007,000\r\n`;
    expect(parseWhitelist(text)).toEqual([
      { address: a, maxClaimable: "2", price: "1000000000000000" },
      { address: b, maxClaimable: "7", price: "0" },
    ]);
  });

  it("accepts the largest maxClaimable and price", () => {
    const [entry] = parseWhitelist(`${uniqueAddress()},4294967295,${MAX_UINT256}`);
    expect(entry).toMatchObject({ maxClaimable: "4294967295", price: MAX_UINT256 });
  });

  const address = "0x00000000000000000000000000000000000000aa";
  it.each([
    ["a missing field", `${address},1`, "expected 3 comma-separated fields"],
    ["an extra field", `${address},1,0,9`, "found 4"],
    ["a short address", "0x1234,1,0", "is not a 20-byte hex address"],
    ["an address without 0x", `${address.slice(2)}00,1,0`, "is not a 20-byte hex address"],
    ["the zero address", `0x${"0".repeat(40)},1,0`, "must not be the zero address"],
    ["maxClaimable 0", `${address},0,0`, "maxClaimable must be at least 1"],
    ["a negative maxClaimable", `${address},-1,0`, "must be a positive integer"],
    ["a fractional maxClaimable", `${address},1.5,0`, "must be a positive integer"],
    ["maxClaimable over 2^32-1", `${address},4294967296,0`, "maxClaimable must be at most 4294967295"],
    ["an empty price", `${address},1,`, "must be a non-negative integer"],
    ["a decimal price", `${address},1,0.01`, "no decimals or exponents"],
    ["an exponent price", `${address},1,1e18`, "no decimals or exponents"],
    ["a negative price", `${address},1,-5`, "must be a non-negative integer"],
    ["a price of 2^256", `${address},1,${2n ** 256n}`, "price must be less than 2^256"],
  ])("rejects %s with its line number", (_, badLine, fragment) => {
    // Line 4 of the original text, counting the comment and the blank line.
    const error = parseError(`# header\n${uniqueAddress()},1,0\n\n${badLine}\n${uniqueAddress()},1,0`);
    expect(error.code).toBe("validation_error");
    expect(error.message).toMatch(/^whitelist line 4: /);
    expect(error.message).toContain(fragment);
    expect(error.details).toEqual([{ path: "body.whitelist", message: error.message.replace("whitelist ", "") }]);
  });

  it("rejects a duplicate address in any case, naming both lines", () => {
    const a = uniqueAddress();
    const error = parseError(`${a},1,0\r\n# again\r\n0x${a.slice(2).toUpperCase()},2,0`);
    expect(error.message).toBe(`whitelist line 3: duplicate address ${a} (already on line 1)`);
    expect(error.details).toEqual([{ path: "body.whitelist", message: `line 3: duplicate address ${a} (already on line 1)` }]);
  });

  it("rejects a whitelist without entries", () => {
    expect(parseError("").message).toBe("whitelist has no entries");
    expect(parseError("# only a comment\r\n\r\n").details).toEqual([{ path: "body.whitelist", message: expect.stringContaining("no entries") }]);
  });

  it(`caps the list at ${MAX_WHITELIST_ENTRIES} entries`, () => {
    const line = (i: number) => `0x${(i + 1).toString(16).padStart(40, "0")},1,0`;
    const full = Array.from({ length: MAX_WHITELIST_ENTRIES }, (_, i) => line(i)).join("\n");
    expect(parseWhitelist(full)).toHaveLength(MAX_WHITELIST_ENTRIES);
    const error = parseError(`${full}\n${line(MAX_WHITELIST_ENTRIES)}`);
    expect(error.status).toBe(400);
    expect(error.message).toBe(`whitelist has more than ${MAX_WHITELIST_ENTRIES} entries`);
    expect(error.details?.[0]?.path).toBe("body.whitelist");
  });
});

/** Deterministic leaves; LIBRARY_* below are what StandardMerkleTree.of(leaves(n), ["address", "uint256", "uint256"]) gives in Node. */
const goldenEntries = (n: number): AllowlistEntry[] =>
  Array.from({ length: n }, (_, i) => ({
    address: `0x${(0xa11ce + i * 0x1f3d5b).toString(16).padStart(40, "0")}`,
    maxClaimable: i === 0 ? "4294967295" : String((i % 5) + 1),
    price: i === 1 ? MAX_UINT256 : (BigInt(i) * 10n ** 15n).toString(),
  }));

const LIBRARY_DUMP_OF_5 = {
  format: "standard-v1",
  leafEncoding: ["address", "uint256", "uint256"],
  tree: [
    "0xd2c4e095be58e104cd73c4650cf6be15ef04ac40a06fc714c0532f82cf9db3bd",
    "0x34b415845bb0fd6754271adfbffe8647460ca0b6d0b1864d8ce6fed6d5e4b356",
    "0xeab4a6e16c771940e5b6e81d347fa02f14f0110136e24a3b9899840868d7fcc1",
    "0xb360388cc1ce2e726b5b6084717df477fb8df424448e606ff8d5d4f96cc5be03",
    "0xf3cab07638d63b9183a6f7f998a8de680fd80baf5e5f442303f79a95c572d506",
    "0xcb0d17a2c7683159f30ae14ab2426c8a5b7a8bf8a3d3f390dfe3c4b85cea6037",
    "0x95018d16dc8081a23257e32a6256a5f3eec57b9045cd2106ad823c3da226a01d",
    "0x7291e6fc72978a4c29d5808e230e4f523ded9057ddaa5cc9b016b84eef5d86c4",
    "0x4dbd4deb08fe1bacd4476d4f659ad7ed4c13c6c082d1d612123931e8a0869ad3",
  ],
  values: [
    { value: ["0x00000000000000000000000000000000000a11ce", "4294967295", "0"], treeIndex: 6 },
    { value: ["0x0000000000000000000000000000000000294f29", "2", MAX_UINT256], treeIndex: 4 },
    { value: ["0x0000000000000000000000000000000000488c84", "3", "2000000000000000"], treeIndex: 7 },
    { value: ["0x000000000000000000000000000000000067c9df", "4", "3000000000000000"], treeIndex: 8 },
    { value: ["0x000000000000000000000000000000000087073a", "5", "4000000000000000"], treeIndex: 5 },
  ],
};

const LIBRARY_ROOTS: Record<number, string> = {
  1: "0x95018d16dc8081a23257e32a6256a5f3eec57b9045cd2106ad823c3da226a01d",
  2: "0xddd8b0759f6c37ed91cbc3297e81719aa6f4a8b0c1ac7a5ed50018c8d25b99b2",
  3: "0xfecdbb87b0bd4b1c489778b31e4b6b5ff396f38ed00cbc075112d0bbf7d63f73",
  8: "0xf2d31ab67ad7150a2da017f73fd3e71aa7e95ac1e37e8aaa33dcb1c6cbb39345",
  13: "0x79101a344aaf9a9a9c73cbbb7c894891cf89807f27bb6b27b65e82dc09ff60f1",
  100: "0x1f42d293fcea36c37bf5b98dda88642b629b592b2f783a2c9db2bd0db1582618",
};

describe("buildAllowlist and findAllowlistEntry", () => {
  it("produces exactly the dump @openzeppelin/merkle-tree produces for the same input", () => {
    const allowlist = buildAllowlist(goldenEntries(5));
    expect(JSON.parse(allowlist.tree)).toEqual(LIBRARY_DUMP_OF_5);
    expect(allowlist.merkleRoot).toBe(LIBRARY_DUMP_OF_5.tree[0]);
    for (const [n, root] of Object.entries(LIBRARY_ROOTS)) expect(buildAllowlist(goldenEntries(Number(n))).merkleRoot, `n=${n}`).toBe(root);
  });

  it("proves every entry, by the tree's own check and by the contract's leaf formula", () => {
    const entries = goldenEntries(13);
    const allowlist = buildAllowlist(entries);
    for (const entry of entries) {
      const found = findAllowlistEntry(allowlist.tree, getAddress(entry.address));
      expect(found).toEqual({ ...entry, proof: expect.any(Array) });
      expect(verifyAllowlistProof(allowlist.merkleRoot, [found!.address, found!.maxClaimable, found!.price], found!.proof as Hex[])).toBe(true);
      expect(contractVerifies(allowlist.merkleRoot, entry, found!.proof)).toBe(true);
      // The proof is bound to the leaf: a larger allowance or a lower price does not verify.
      expect(contractVerifies(allowlist.merkleRoot, { ...entry, maxClaimable: "100" }, found!.proof)).toBe(false);
      expect(contractVerifies(allowlist.merkleRoot, { ...entry, price: "1" }, found!.proof)).toBe(false);
    }
  });

  it("reads a dump written by the library, including checksummed addresses in it", () => {
    const dump = structuredClone(LIBRARY_DUMP_OF_5) as unknown as AllowlistTreeDump;
    dump.values[2]!.value[0] = getAddress(dump.values[2]!.value[0]);
    const found = findAllowlistEntry(JSON.stringify(dump), "0x0000000000000000000000000000000000488C84");
    expect(found).toMatchObject({ address: "0x0000000000000000000000000000000000488c84", maxClaimable: "3", price: "2000000000000000" });
    expect(contractVerifies(dump.tree[0]!, goldenEntries(5)[2]!, found!.proof)).toBe(true);
  });

  it("returns null for an address not on the list; a one-entry tree has an empty proof", () => {
    const entries = goldenEntries(3);
    expect(findAllowlistEntry(buildAllowlist(entries).tree, uniqueAddress())).toBeNull();
    const single = buildAllowlist([entries[0]!]);
    expect(findAllowlistEntry(single.tree, entries[0]!.address)?.proof).toEqual([]);
    expect(contractVerifies(single.merkleRoot, entries[0]!, [])).toBe(true);
  });

  it("keeps small trees inline for D1 and puts large ones in R2", async () => {
    const ctx = serviceContext(env);
    const small = buildAllowlist(goldenEntries(3));
    expect(await storeAllowlistTree(ctx, crypto.randomUUID(), small.tree)).toBe(small.tree);
    const dropId = crypto.randomUUID();
    const large = "x".repeat(MAX_INLINE_ALLOWLIST_TREE_BYTES + 1);
    expect(await storeAllowlistTree(ctx, dropId, large)).toBeNull();
    expect(await (await env.METADATA.get(allowlistObjectKey(dropId)))?.text()).toBe(large);
  });
});

describe("GET /v1/drops/{id}/allowlist/{address}", () => {
  let owner: TestProject;
  let other: TestProject;
  let dropId: string;
  let plainDropId: string;
  let r2DropId: string;
  let merkleRoot: string;
  const listed: AllowlistEntry[] = [
    { address: uniqueAddress(), maxClaimable: "2", price: "2000000000000000" },
    { address: uniqueAddress(), maxClaimable: "1", price: "0" },
    { address: uniqueAddress(), maxClaimable: "5", price: "10000000000000000" },
  ];

  beforeAll(async () => {
    [owner, other] = await Promise.all([createTestProject("Allowlist owner"), createTestProject("Allowlist outsider")]);
    const allowlist = buildAllowlist(listed);
    merkleRoot = allowlist.merkleRoot;
    dropId = (await seedDrop(owner.id, { merkleRoot })).id;
    await env.DB.prepare("insert into drop_allowlists (drop_id, tree) values (?, ?)").bind(dropId, allowlist.tree).run();
    plainDropId = (await seedDrop(owner.id)).id;
    r2DropId = (await seedDrop(owner.id, { merkleRoot })).id;
    await env.METADATA.put(allowlistObjectKey(r2DropId), allowlist.tree);
  });

  it("returns the checksummed address, allowance, price and a proof the contract accepts", async () => {
    const entry = listed[0]!;
    const { status, body } = await call(`/v1/drops/${dropId}/allowlist/${entry.address}`, { apiKey: owner.apiKey });
    expect(status).toBe(200);
    expect(body).toEqual({ address: getAddress(entry.address), maxClaimable: "2", price: "2000000000000000", proof: expect.any(Array) });
    expect(contractVerifies(merkleRoot, entry, body.proof)).toBe(true);
  });

  it("accepts the address in upper case and works with a secret key", async () => {
    const entry = listed[2]!;
    const upper = `0x${entry.address.slice(2).toUpperCase()}`;
    const { status, body } = await call(`/v1/drops/${dropId}/allowlist/${upper}`, { secretKey: owner.secretKey });
    expect(status).toBe(200);
    expect(body.address).toBe(getAddress(entry.address));
    expect(contractVerifies(merkleRoot, entry, body.proof)).toBe(true);
  });

  it("answers from R2 when the tree was too large for D1", async () => {
    const entry = listed[1]!;
    const { status, body } = await call(`/v1/drops/${r2DropId}/allowlist/${entry.address}`, { apiKey: owner.apiKey });
    expect(status).toBe(200);
    expect(body).toMatchObject({ address: getAddress(entry.address), maxClaimable: "1", price: "0" });
    expect(contractVerifies(merkleRoot, entry, body.proof)).toBe(true);
  });

  it("keeps a deployed drop's tree out of the drop row, in drop_allowlists, and answers from it", async () => {
    await fund(owner.walletAddress);
    const entry = listed[2]!;
    const whitelist = listed.map((e) => `${e.address},${e.maxClaimable},${e.price}`).join("\n");
    const deployed = await call("/v1/project-wallet/drops/deploy", {
      secretKey: owner.secretKey,
      body: { name: "Listed", metadataStorageType: "self-hosted", baseUri: "https://example.com/listed/", whitelist },
    });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
    const id = deployed.body.drop.id as string;
    const stored = await env.DB.prepare("select length(tree) as bytes from drop_allowlists where drop_id = ?").bind(id).first<{ bytes: number }>();
    expect(stored?.bytes).toBe(buildAllowlist(listed).tree.length);
    const columns = await env.DB.prepare("select name from pragma_table_info('drops')").all<{ name: string }>();
    expect(columns.results.map((c) => c.name)).not.toContain("allowlist_tree");

    const { status, body } = await call(`/v1/drops/${id}/allowlist/${entry.address}`, { apiKey: owner.apiKey });
    expect(status).toBe(200);
    expect(contractVerifies(merkleRoot, entry, body.proof)).toBe(true);
  });

  it("is 404 for another project's drop, an unlisted address and a drop without an allowlist", async () => {
    const address = listed[1]!.address;
    expectEnvelope(await call(`/v1/drops/${dropId}/allowlist/${address}`, { apiKey: other.apiKey }), 404, "not_found");
    expectEnvelope(await call(`/v1/drops/${dropId}/allowlist/${uniqueAddress()}`, { apiKey: owner.apiKey }), 404, "not_found");
    expectEnvelope(await call(`/v1/drops/${plainDropId}/allowlist/${address}`, { apiKey: owner.apiKey }), 404, "not_found");
    expectEnvelope(await call(`/v1/drops/${crypto.randomUUID()}/allowlist/${address}`, { apiKey: owner.apiKey }), 404, "not_found");
  });

  it("rejects a malformed address with 400 naming the path parameter, and needs a key", async () => {
    const error = expectEnvelope(await call(`/v1/drops/${dropId}/allowlist/0x1234`, { apiKey: owner.apiKey }), 400, "validation_error");
    expect(error.details).toEqual([{ path: "path.address", message: expect.stringContaining("20-byte hex address") }]);
    expectEnvelope(await call(`/v1/drops/${dropId}/allowlist/${listed[0]!.address}`), 401, "unauthorized");
  });
});

describe("GET /v1/metadata/{chainId}/{contractAddress}/{tokenId}", () => {
  const path = (contract: string, tokenId: string, chainId = 1868) => `/v1/metadata/${chainId}/${contract}/${tokenId}`;
  let project: TestProject;
  let s3Drop: Awaited<ReturnType<typeof seedDrop>>;
  let s3NoDefaultDrop: Awaited<ReturnType<typeof seedDrop>>;
  let apiDrop: Awaited<ReturnType<typeof seedDrop>>;
  let selfHostedDrop: Awaited<ReturnType<typeof seedDrop>>;

  const tokenOne = { name: "Token one", image: "https://example.com/1.png", attributes: [{ trait_type: "Eyes", value: "Laser" }] };
  const s3Default = { name: "Mystery box", description: "Revealed soon", image: "https://example.com/box.png" };

  async function seedMinted(drop: Awaited<ReturnType<typeof seedDrop>>, ...tokenIds: string[]) {
    const collection = await seedCollection({ contractAddress: drop.contractAddress, dropId: drop.id });
    for (const tokenId of tokenIds) await seedAsset(collection, tokenId);
  }

  beforeAll(async () => {
    project = await createTestProject("Metadata owner");
    s3Drop = await seedDrop(project.id, { metadataStorageType: "s3" });
    s3NoDefaultDrop = await seedDrop(project.id, { metadataStorageType: "s3" });
    apiDrop = await seedDrop(project.id, { metadataStorageType: "metadata-api" });
    selfHostedDrop = await seedDrop(project.id, { metadataStorageType: "self-hosted" });
    await Promise.all([
      seedMinted(s3Drop, "1", "2"),
      seedMinted(s3NoDefaultDrop, "1"),
      seedMinted(apiDrop, "1", "2"),
      seedMinted(selfHostedDrop, "1"),
    ]);
    await env.METADATA.put(metadataObjectKey(s3Drop.id, "1"), JSON.stringify(tokenOne));
    await env.METADATA.put(metadataObjectKey(s3Drop.id, "default"), JSON.stringify(s3Default));
    await seedTokenMetadata(apiDrop, "default", { name: "Genesis Pass", image: "https://example.com/pass.png" });
    await seedTokenMetadata(apiDrop, "2", {
      name: "Golden Pass",
      description: "One of a kind",
      image: "https://example.com/gold.png",
      animationUrl: "https://example.com/gold.mp4",
      externalUrl: "https://example.com/passes/2",
      attributes: JSON.stringify([{ trait_type: "Tier", value: "Gold" }, { trait_type: "Level", value: 3, display_type: "number" }]),
      properties: JSON.stringify({ rarity: "legendary" }),
    });
  });

  it("serves an s3 drop's per-token document, publicly", async () => {
    const { status, body, headers } = await call(path(s3Drop.contractAddress, "1"));
    expect(status).toBe(200);
    expect(headers.get("content-type")).toContain("application/json");
    expect(body).toEqual(tokenOne);
  });

  it("falls back to an s3 drop's default document, and is 404 without either", async () => {
    expect((await call(path(s3Drop.contractAddress, "2"))).body).toEqual(s3Default);
    expectEnvelope(await call(path(s3NoDefaultDrop.contractAddress, "1")), 404, "not_found");
  });

  it("sends a drop's default uncached while a claim of the drop awaits its receipt, which may write the token's own document", async () => {
    const cacheOf = async (drop: Awaited<ReturnType<typeof seedDrop>>, tokenId: string) => {
      const { status, headers } = await call(path(drop.contractAddress, tokenId));
      expect(status, `${drop.metadataStorageType} token ${tokenId}`).toBe(200);
      expect(headers.get("etag")).toMatch(/^"[0-9a-f]{64}"$/);
      return headers.get("cache-control");
    };
    const cacheable = "public, max-age=300, stale-while-revalidate=86400";
    const claims = await Promise.all([s3Drop, apiDrop].map((drop) => seedTransaction(project.id, { kind: "claim", status: "pending", subjectId: drop.id, transactionHash: randomHash() })));
    try {
      // Token 2 of the s3 drop and token 1 of the metadata-api drop have only the default.
      expect(await cacheOf(s3Drop, "2")).toBe("public, no-cache");
      expect(await cacheOf(apiDrop, "1")).toBe("public, no-cache");
      // A token's own document is final whatever is pending.
      expect(await cacheOf(s3Drop, "1")).toBe(cacheable);
      expect(await cacheOf(apiDrop, "2")).toBe(cacheable);
    } finally {
      await env.DB.prepare("update transactions set status = 'confirmed' where id in (?, ?)").bind(claims[0]!.id, claims[1]!.id).run();
    }
    expect(await cacheOf(s3Drop, "2")).toBe(cacheable);
    expect(await cacheOf(apiDrop, "1")).toBe(cacheable);
  });

  it("renders a metadata-api drop's override in OpenSea form, omitting absent fields", async () => {
    const { status, body } = await call(path(apiDrop.contractAddress, "2"));
    expect(status).toBe(200);
    expect(body).toEqual({
      name: "Golden Pass",
      description: "One of a kind",
      image: "https://example.com/gold.png",
      animation_url: "https://example.com/gold.mp4",
      external_url: "https://example.com/passes/2",
      attributes: [{ trait_type: "Tier", value: "Gold" }, { trait_type: "Level", value: 3, display_type: "number" }],
      properties: { rarity: "legendary" },
    });
  });

  it("renders a metadata-api drop's default for a token without an override; the contract may be any case", async () => {
    const upper = `0x${apiDrop.contractAddress.slice(2).toUpperCase()}`;
    const { status, body } = await call(path(upper, "1"));
    expect(status).toBe(200);
    expect(body).toEqual({ name: "Genesis Pass", image: "https://example.com/pass.png" });
  });

  it("is 404 for self-hosted drops, unknown contracts and tokens not minted yet", async () => {
    expectEnvelope(await call(path(selfHostedDrop.contractAddress, "1")), 404, "not_found");
    expectEnvelope(await call(path(uniqueAddress(), "1")), 404, "not_found");
    const unminted = expectEnvelope(await call(path(apiDrop.contractAddress, "3")), 404, "not_found");
    expect(unminted.message).toContain("not minted");
    const unmintedHeaders = (await call(path(apiDrop.contractAddress, "3"))).headers;
    // The token may be minted a second later: no cache may keep this answer.
    expect(unmintedHeaders.get("cache-control")).toBe("no-store");
    expect(unmintedHeaders.get("etag")).toBeNull();
  });

  it("asks the chain only about ids the drop can have minted", async () => {
    const capped = await seedDrop(project.id, { metadataStorageType: "metadata-api", totalSupply: 10 });
    const chainReads = recordFetches(({ body }) => body?.includes('"eth_call"') ?? false);
    try {
      for (const tokenId of ["0", "11"]) {
        await expect(renderTokenMetadata(serviceContext(env), 1868, capped.contractAddress, tokenId), tokenId).rejects.toMatchObject({ code: "not_found" });
      }
      expect(chainReads).toEqual([]);
      await expect(renderTokenMetadata(serviceContext(env), 1868, capped.contractAddress, "10")).rejects.toMatchObject({ code: "not_found" });
      expect(chainReads).toHaveLength(1);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("answers made-up ids from what it knows: one chain read per drop, none per id", async () => {
    // An unlimited drop whose project wallet minted ids 1 and 2 (D1's next id is 3), neither in D1
    // any more: burned, or a public claim the indexer has not applied yet.
    const unlimited = await seedDrop(project.id, { metadataStorageType: "metadata-api", nextTokenId: 3 });
    const notFound = (tokenId: string) =>
      expect(renderTokenMetadata(serviceContext(env), 1868, unlimited.contractAddress, tokenId), tokenId).rejects.toMatchObject({ code: "not_found" });
    const chainReads = recordFetches(({ body }) => body?.includes('"eth_call"') ?? false);
    // One instant: the negative answers' few seconds of life cannot run out during the flood.
    vi.spyOn(Date, "now").mockReturnValue(Date.now());
    try {
      const madeUp = [...Array.from({ length: 40 }, (_, i) => String(3 + i * 7919)), String(2n ** 40n - 1n), String(2n ** 40n), MAX_UINT256];
      for (const tokenId of madeUp) await notFound(tokenId);
      // The chain's count of minted tokens (no code at this address: 0) answers every one of them.
      expect(chainReads).toHaveLength(1);
      // Ids it did mint cost an ownerOf each, once: a token gone from the chain stays gone.
      for (const tokenId of ["1", "2", "1", "2", "1"]) await notFound(tokenId);
      expect(chainReads).toHaveLength(3);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it("says no-store on errors raised before the handler too", async () => {
    const invalid = await SELF.fetch(`${BASE}${path("0xabc", "1")}`, { headers: { origin: "https://mint.example" } });
    await invalid.text();
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get("cache-control")).toBe("no-store");
    expect(invalid.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("lets any origin read it, answers included", async () => {
    const origin = { headers: { origin: "https://mint.example" } };
    const served = await SELF.fetch(`${BASE}${path(apiDrop.contractAddress, "1")}`, origin);
    await served.text();
    expect(served.headers.get("access-control-allow-origin")).toBe("*");
    const missing = await SELF.fetch(`${BASE}${path(apiDrop.contractAddress, "3")}`, origin);
    await missing.text();
    expect(missing.status).toBe(404);
    expect(missing.headers.get("access-control-allow-origin")).toBe("*");
    const preflight = await SELF.fetch(`${BASE}${path(apiDrop.contractAddress, "1")}`, {
      method: "OPTIONS",
      headers: { origin: "https://mint.example", "access-control-request-method": "GET" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toContain("GET");
    // The keyed API is for servers (keys stay out of browsers): no CORS there.
    const keyed = await SELF.fetch(`${BASE}/v1/assets/explore`, origin);
    await keyed.text();
    expect(keyed.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("rejects an unknown chain and malformed parameters", async () => {
    expectEnvelope(await call(path(apiDrop.contractAddress, "1", 999)), 400, "unsupported_chain");
    const badToken = expectEnvelope(await call(path(apiDrop.contractAddress, "01")), 400, "validation_error");
    expect(badToken.details?.[0]?.path).toBe("path.tokenId");
    for (const chainId of ["0x74c", "1868.0", "01868"]) {
      const badChain = expectEnvelope(await call(`/v1/metadata/${chainId}/${apiDrop.contractAddress}/1`), 400, "validation_error");
      expect(badChain.details?.[0]?.path, chainId).toBe("path.chainId");
    }
    const badContract = expectEnvelope(await call(path("0xabc", "1")), 400, "validation_error");
    expect(badContract.details?.[0]?.path).toBe("path.contractAddress");
  });

  it("sends Cache-Control and a strong SHA-256 ETag, and answers If-None-Match with 304", async () => {
    const url = `${BASE}${path(apiDrop.contractAddress, "2")}`;
    const first = await SELF.fetch(url);
    const text = await first.text();
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
    const etag = `"${[...digest].map((b) => b.toString(16).padStart(2, "0")).join("")}"`;
    expect(first.headers.get("etag")).toBe(etag);
    expect(first.headers.get("cache-control")).toBe("public, max-age=300, stale-while-revalidate=86400");

    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, "*"]) {
      const revalidated = await SELF.fetch(url, { headers: { "if-none-match": ifNoneMatch } });
      expect(revalidated.status, ifNoneMatch).toBe(304);
      expect(await revalidated.text()).toBe("");
      expect(revalidated.headers.get("etag")).toBe(etag);
      expect(revalidated.headers.get("cache-control")).toBe("public, max-age=300, stale-while-revalidate=86400");
    }
    const changed = await SELF.fetch(url, { headers: { "if-none-match": '"stale"' } });
    expect(changed.status).toBe(200);
    expect(await changed.text()).toBe(text);

    const other = await SELF.fetch(`${BASE}${path(apiDrop.contractAddress, "1")}`);
    await other.text();
    expect(other.headers.get("etag")).not.toBe(etag);
  });
});

describe("toOpenSeaMetadata", () => {
  it("maps camelCase TokenMetadata to OpenSea field names and omits absent fields", () => {
    expect(toOpenSeaMetadata({ name: "A" })).toEqual({ name: "A" });
    expect(
      toOpenSeaMetadata({
        name: "B",
        description: "d",
        image: "https://x/i.png",
        animationUrl: "https://x/a.mp4",
        externalUrl: "https://x",
        attributes: [{ trait_type: "t", value: 1 }],
        properties: { p: true },
      }),
    ).toEqual({
      name: "B",
      description: "d",
      image: "https://x/i.png",
      animation_url: "https://x/a.mp4",
      external_url: "https://x",
      attributes: [{ trait_type: "t", value: 1 }],
      properties: { p: true },
    });
    expect(metadataObjectKey("d1", "default")).toBe("drops/d1/default.json");
  });
});
