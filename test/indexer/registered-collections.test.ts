// Collections deployed elsewhere: registration (validation, ERC-165 detection, conflicts) and
// the indexer following their ERC-721 and ERC-1155 logs, from `fromBlock` or from registration.
import { env } from "cloudflare:workers";
import { encodeFunctionData, toFunctionSelector, type Abi, type Address } from "viem";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { getChain } from "../../src/lib/chains";
import { assetFieldsFor, assetRows } from "../../src/services/indexer/asset-fields";
import { seedAsset, seedCollection, seedListing, uniqueAddress } from "../fixtures/seed";
import { baselineErc721Abi, baselineErc721Bytecode } from "../contracts/artifacts/baseline-erc721";
import { testErc1155Abi, testErc1155Bytecode } from "../contracts/artifacts/test-erc1155";
import { testErc20Abi, testErc20Bytecode } from "../contracts/artifacts/test-erc20";
import { ETHER, fund, ownerOf, waitForTransaction } from "../helpers/chain";
import { interceptFetch, recordFetches } from "../helpers/fetch-spy";
import { call, expectEnvelope } from "../helpers/http";
import { fundedAccount, nextBlock, runIndex, type FundedAccount } from "../helpers/indexer";
import { createTestProject, type TestProject } from "../helpers/projects";
import { seaportJsList } from "../helpers/seaport";
import { freshWallet } from "../helpers/wallets";

let project: TestProject;
let deployer: FundedAccount;

const register = (body: Record<string, unknown>) => call("/v1/admin/collections", { admin: true, body });

const mint721 = (to: string, quantity: bigint) =>
  encodeFunctionData({ abi: baselineErc721Abi, functionName: "mintTo", args: [to as Address, quantity] });

async function owned(owner: string, contract: string) {
  const { status, body } = await call(`/v1/assets/explore?ownerAddress=${owner}&contractAddress=${contract}`, { apiKey: project.apiKey });
  expect(status).toBe(200);
  return body.data.map((asset: { tokenId: string }) => asset.tokenId).sort();
}

async function balances(contract: string, tokenId: string) {
  const { results } = await env.DB.prepare("select owner_address, balance from ownerships where contract_address = ? and token_id = ? order by owner_address")
    .bind(contract, tokenId)
    .all<{ owner_address: string; balance: string }>();
  return Object.fromEntries(results.map((row) => [row.owner_address, row.balance]));
}

const orderStatus = async (orderHash: string) =>
  (await env.DB.prepare("select status from orders where order_hash = ?").bind(orderHash).first<{ status: string }>())?.status;

beforeAll(async () => {
  project = await createTestProject("Registered collections");
  deployer = await fundedAccount();
});

describe("POST /v1/admin/collections", () => {
  it("rejects bad input, unknown chains, non-contracts, non-NFTs, duplicates and missing admin credentials", async () => {
    const nft = await deployer.deploy(baselineErc721Abi as Abi, baselineErc721Bytecode);
    const erc20 = await deployer.deploy(testErc20Abi as Abi, testErc20Bytecode);

    expectEnvelope(await call("/v1/admin/collections", { body: { contractAddress: nft.address, slug: "nope" } }), 401, "unauthorized");
    expectEnvelope(await call("/v1/admin/collections", { apiKey: project.apiKey, body: { contractAddress: nft.address, slug: "nope" } }), 401, "unauthorized");
    for (const slug of ["Has Spaces", "soneium:0xabc", "UPPER", "x", "-leading-dash"]) {
      const error = expectEnvelope(await register({ contractAddress: nft.address, slug }), 400, "validation_error");
      expect(error.details?.map((d) => d.path), slug).toContain("body.slug");
    }
    expect(expectEnvelope(await register({ contractAddress: "0x1234", slug: "short-address" }), 400, "validation_error").details?.[0]?.path).toBe(
      "body.contractAddress",
    );
    expect(expectEnvelope(await register({ contractAddress: nft.address, slug: "extra", colour: "red" }), 400, "validation_error").details?.[0]?.path).toBe(
      "body.colour",
    );
    expectEnvelope(await register({ chainId: 5, contractAddress: nft.address, slug: "other-chain" }), 400, "unsupported_chain");
    const noCode = expectEnvelope(await register({ contractAddress: uniqueAddress(), slug: "no-code" }), 400, "validation_error");
    expect(noCode.details?.[0]?.path).toBe("body.contractAddress");
    const notNft = expectEnvelope(await register({ contractAddress: erc20.address, slug: "a-currency" }), 400, "validation_error");
    expect(notNft.details?.[0]?.path).toBe("body.schema");

    const created = await register({ contractAddress: nft.address.toUpperCase().replace("0X", "0x"), slug: "baseline-one", name: "Baseline One" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ slug: "baseline-one", chainId: 1868, name: "Baseline One", isVerified: false });
    expect(created.body.contractAddress.toLowerCase()).toBe(nft.address);
    expect(created.body.contractAddress).not.toBe(nft.address); // checksummed
    const row = await env.DB.prepare("select schema, tracked, drop_id from collections where id = ?").bind(created.body.id).first();
    expect(row).toEqual({ schema: "ERC721", tracked: 1, drop_id: null });

    const sameSlug = await deployer.deploy(baselineErc721Abi as Abi, baselineErc721Bytecode);
    expect(expectEnvelope(await register({ contractAddress: sameSlug.address, slug: "baseline-one" }), 409, "conflict").details?.[0]?.path).toBe("body.slug");
    expect(expectEnvelope(await register({ contractAddress: nft.address, slug: "baseline-again" }), 409, "conflict").details?.[0]?.path).toBe(
      "body.contractAddress",
    );
  });
});

describe("indexing registered collections", () => {
  it("backfills an ERC-721 from fromBlock, then follows its mints and transfers", async () => {
    const alice = await fundedAccount();
    const bob = await fundedAccount();
    const nft = await deployer.deploy(baselineErc721Abi as Abi, baselineErc721Bytecode);
    await deployer.send({ to: nft.address, data: mint721(alice.address, 2n) }); // ids 0 and 1, before registration
    await nextBlock();
    await runIndex(); // the chain cursor moves past those mints

    const created = await register({ contractAddress: nft.address, slug: "baseline-backfilled", fromBlock: nft.blockNumber });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await alice.send({
      to: nft.address,
      data: encodeFunctionData({ abi: baselineErc721Abi, functionName: "transferFrom", args: [alice.account.address, bob.account.address, 0n] }),
    });
    await deployer.send({ to: nft.address, data: mint721(bob.address, 1n) }); // id 2
    await nextBlock();
    await runIndex();

    expect(await owned(alice.address, nft.address)).toEqual(["1"]);
    expect(await owned(bob.address, nft.address)).toEqual(["0", "2"]);
    const asset = await call(`/v1/assets/1868/${nft.address}/1`, { apiKey: project.apiKey });
    expect(asset.status).toBe(200);
    // The baseline contract has no base URI, so its tokenURI is "" (stored as unknown), and
    // the service never invents a name or image.
    expect(asset.body).toMatchObject({ schema: "ERC721", name: null, imageUrl: null, tokenUri: null });
    expect(asset.body.collection).toMatchObject({ slug: "baseline-backfilled" });
    const state = await env.DB.prepare("select backfill_next_block from collections where id = ?").bind(created.body.id).first();
    expect(state).toEqual({ backfill_next_block: null });
  });

  it("starts at the chain cursor when fromBlock is omitted", async () => {
    const carol = await fundedAccount();
    const nft = await deployer.deploy(baselineErc721Abi as Abi, baselineErc721Bytecode);
    await deployer.send({ to: nft.address, data: mint721(carol.address, 1n) }); // id 0: before registration
    await nextBlock();
    await runIndex();

    expect((await register({ contractAddress: nft.address, slug: "baseline-from-now" })).status).toBe(201);
    await deployer.send({ to: nft.address, data: mint721(carol.address, 1n) }); // id 1
    await nextBlock();
    await runIndex();
    expect(await owned(carol.address, nft.address)).toEqual(["1"]);

    // Token 0's mint was never indexed: its first transfer gives it an asset row, with its owner.
    const dan = await fundedAccount();
    await carol.send({ to: nft.address, data: encodeFunctionData({ abi: baselineErc721Abi, functionName: "transferFrom", args: [carol.account.address, dan.account.address, 0n] }) });
    await nextBlock();
    await runIndex();
    expect(await owned(dan.address, nft.address)).toEqual(["0"]);
    const asset = await call(`/v1/assets/1868/${nft.address}/0`, { apiKey: project.apiKey });
    expect(asset.status).toBe(200);
    expect(asset.body).toMatchObject({ tokenId: "0", schema: "ERC721", collection: { slug: "baseline-from-now" } });
  });

  it("detects ERC-1155, keeps balances through single and batch transfers and retires over-listed orders", async () => {
    const dave = await fundedAccount();
    const erin = await fundedAccount();
    const multi = await deployer.deploy(testErc1155Abi as Abi, testErc1155Bytecode);
    const created = await register({ contractAddress: multi.address, slug: "multi-tokens" });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(await env.DB.prepare("select schema from collections where id = ?").bind(created.body.id).first()).toEqual({ schema: "ERC1155" });

    const mint = encodeFunctionData({ abi: testErc1155Abi, functionName: "mint", args: [dave.account.address, 7n, 10n] });
    const mintBatch = encodeFunctionData({ abi: testErc1155Abi, functionName: "mintBatch", args: [dave.account.address, [8n, 9n], [1n, 2n]] });
    await deployer.send({ to: multi.address, data: mint });
    await deployer.send({ to: multi.address, data: mintBatch });
    await nextBlock();
    await runIndex();
    expect(await balances(multi.address, "7")).toEqual({ [dave.address]: "10" });
    expect(await balances(multi.address, "9")).toEqual({ [dave.address]: "2" });
    expect(await owned(dave.address, multi.address)).toEqual(["7", "8", "9"]);
    const asset = await call(`/v1/assets/1868/${multi.address}/7`, { apiKey: project.apiKey });
    expect(asset.body).toMatchObject({ schema: "ERC1155", tokenUri: `https://example.test/1155/${"7".padStart(64, "0")}.json` });

    const token = { chainId: 1868, contractAddress: multi.address, tokenId: "7" } as never;
    const eight = await seedListing(token, 10n ** 15n, { offerer: dave.address, quantity: "8" });
    const five = await seedListing(token, 10n ** 15n, { offerer: dave.address, quantity: "5" });
    const send = (value: bigint) =>
      dave.send({
        to: multi.address,
        data: encodeFunctionData({
          abi: testErc1155Abi,
          functionName: "safeTransferFrom",
          args: [dave.account.address, erin.account.address, 7n, value, "0x"],
        }),
      });
    await send(4n);
    await nextBlock();
    await runIndex();
    expect(await balances(multi.address, "7")).toEqual({ [dave.address]: "6", [erin.address]: "4" });
    expect(await orderStatus(eight.orderHash)).toBe("inactive");
    expect(await orderStatus(five.orderHash)).toBe("active");

    await send(6n);
    await nextBlock();
    await runIndex();
    expect(await balances(multi.address, "7")).toEqual({ [erin.address]: "10" });
    expect(await owned(dave.address, multi.address)).toEqual(["8", "9"]);
    expect(await orderStatus(five.orderHash)).toBe("inactive");
  });
});

// A receipt applies the service's own transaction at once; the indexer reaches the blocks before
// it later. Decision 53.
describe("transfers applied out of chain order", () => {
  const seaport = () => (JSON.parse(env.CHAINS) as Record<string, { seaportAddress: string }>)["1868"]!.seaportAddress as Address;

  it("reads a minted token's URI again next run when the node did not answer or only said it was busy, instead of keeping none", async () => {
    const owner = await fundedAccount();
    const multi = await deployer.deploy(testErc1155Abi as Abi, testErc1155Bytecode);
    expect((await register({ contractAddress: multi.address, slug: "uri-blip" })).status).toBe(201);
    const uriSelector = toFunctionSelector("function uri(uint256)").slice(2);
    // For one run, every uri() read of the newly minted token meets the blip.
    const blips: [number, (requestId: number) => Promise<Response>][] = [
      [21, async () => Promise.reject(new TypeError("Network connection lost."))],
      [22, async (requestId) => Response.json({ jsonrpc: "2.0", id: requestId, error: { code: 429, message: "Too Many Requests" } })],
    ];
    for (const [tokenId, blip] of blips) {
      await deployer.send({ to: multi.address, data: encodeFunctionData({ abi: testErc1155Abi, functionName: "mint", args: [owner.account.address, BigInt(tokenId), 1n] }) });
      await nextBlock();
      interceptFetch(async ({ body }, pass) => {
        if (body?.includes('"eth_call"') && body.includes(uriSelector)) return blip((JSON.parse(body) as { id: number }).id);
        return pass();
      });
      const blipped = await call("/v1/admin/index", { method: "POST", admin: true }).finally(() => vi.restoreAllMocks());
      // The answer says which read of which chain failed.
      expect(expectEnvelope(blipped, 502, "chain_unavailable").message, `token ${tokenId}`).toContain("chain 1868: uri failed");

      await runIndex();
      const asset = await call(`/v1/assets/1868/${multi.address}/${tokenId}`, { apiKey: project.apiKey });
      expect(asset.body).toMatchObject({ tokenUri: `https://example.test/1155/${tokenId.toString(16).padStart(64, "0")}.json` });
    }
  });

  it("keeps a buy's new owner when the indexer later applies the token's earlier transfers", async () => {
    const buyer = await createTestProject("Out-of-order buyer");
    await fund(buyer.walletAddress);
    const [alice, bob] = await Promise.all([freshWallet(), freshWallet()]);
    const nft = await deployer.deploy(baselineErc721Abi as Abi, baselineErc721Bytecode);
    await nextBlock();
    await runIndex();
    expect((await register({ contractAddress: nft.address, slug: `out-of-order-${nft.address.slice(2, 10)}` })).status).toBe(201);

    // Not indexed yet: the mint to alice and her transfer to bob.
    await deployer.send({ to: nft.address, data: mint721(alice.address, 1n) }); // id 0
    await alice.send({ to: nft.address, data: encodeFunctionData({ abi: baselineErc721Abi, functionName: "transferFrom", args: [alice.address, bob.address, 0n] }) });
    const listing = await seaportJsList({ privateKey: bob.privateKey, token: nft.address, tokenId: "0", price: ETHER / 100n });
    const listed = await call("/v1/orders", { apiKey: buyer.apiKey, body: { signature: listing.signature, parameters: listing.parameters, chainId: 1868 } });
    expect(listed.status, JSON.stringify(listed.body)).toBe(201);
    const bought = await call("/v1/project-wallet/orders/buy", { secretKey: buyer.secretKey, body: { chainId: 1868, orderHashes: [listed.body.orderHash] } });
    expect((await waitForTransaction(bought.body[0].result[0].result.id, buyer.apiKey)).status).toBe("confirmed");
    const wallet = buyer.walletAddress.toLowerCase();
    expect(await owned(wallet, nft.address)).toEqual(["0"]);

    await nextBlock();
    await runIndex();
    expect((await ownerOf(nft.address, 0n)).toLowerCase()).toBe(wallet);
    expect([await owned(wallet, nft.address), await owned(bob.address, nft.address), await owned(alice.address, nft.address)]).toEqual([["0"], [], []]);
    expect(await balances(nft.address, "0")).toEqual({ [wallet]: "1" });
  });

  it("brings back an ERC-1155 listing judged over-listed because D1 never saw the sender's earlier units", async () => {
    const holder = await freshWallet();
    const friend = await freshWallet();
    const multi = await deployer.deploy(testErc1155Abi as Abi, testErc1155Bytecode);
    // Ten units, and Seaport's approval, before the collection is indexed: D1 will not know them
    // (and no approval log in the range below revives the listing for another reason).
    await deployer.send({ to: multi.address, data: encodeFunctionData({ abi: testErc1155Abi, functionName: "mint", args: [holder.address, 7n, 10n] }) });
    await holder.send({ to: multi.address, data: encodeFunctionData({ abi: testErc1155Abi, functionName: "setApprovalForAll", args: [seaport(), true] }) });
    await nextBlock();
    await runIndex();
    expect((await register({ contractAddress: multi.address, slug: `unseen-units-${multi.address.slice(2, 10)}` })).status).toBe(201);

    const token = { chainId: 1868, contractAddress: multi.address, tokenId: "7" } as never;
    const parameters = {
      offerer: holder.address,
      zone: `0x${"00".repeat(20)}`,
      offer: [{ itemType: 3, token: multi.address, identifierOrCriteria: "7", startAmount: "5", endAmount: "5" }],
      consideration: [{ itemType: 0, token: `0x${"00".repeat(20)}`, identifierOrCriteria: "0", startAmount: "5000", endAmount: "5000", recipient: holder.address }],
      orderType: 1,
      startTime: String(Math.floor(Date.now() / 1000) - 60),
      endTime: String(Math.floor(Date.now() / 1000) + 86_400),
      zoneHash: `0x${"00".repeat(32)}`,
      salt: "1",
      conduitKey: `0x${"00".repeat(32)}`,
      counter: "0",
    };
    const five = await seedListing(token, 1_000n, { offerer: holder.address, quantity: "5", parameters: JSON.stringify(parameters) });

    await holder.send({
      to: multi.address,
      data: encodeFunctionData({ abi: testErc1155Abi, functionName: "safeTransferFrom", args: [holder.address, friend.address, 7n, 1n, "0x"] }),
    });
    await nextBlock();
    await runIndex();
    // The holder still has 9 on chain: the listing of 5 can be filled and is listed again.
    expect(await orderStatus(five.orderHash)).toBe("active");
    expect(await balances(multi.address, "7")).toEqual({ [friend.address]: "1" });
  });
});

describe("token URI lookups", () => {
  afterEach(() => vi.restoreAllMocks());

  it("spend the run's budget on new tokens, not on ERC-1155 ids minted again, which have their URI", async () => {
    const multi = await seedCollection({ schema: "ERC1155" });
    const single = await seedCollection({ schema: "ERC721" });
    await seedAsset(multi, "5", { tokenUri: "ipfs://known/5" });
    await seedAsset(multi, "6"); // a bare row (a listing made before the mint was applied)
    // An ERC-721 token minted again was burned in between, which deletes its row: it is looked up.
    await seedAsset(single, "1", { tokenUri: "ipfs://burned/1" });
    const indexed = new Map(
      [multi, single].map((collection) => [
        collection.contractAddress!,
        { id: collection.id!, contractAddress: collection.contractAddress!, schema: collection.schema as "ERC721" | "ERC1155", dropId: null },
      ]),
    );
    const uriCall = (body: string | undefined) => !!body && (body.includes(toFunctionSelector("function uri(uint256)").slice(2)) || body.includes(toFunctionSelector("function tokenURI(uint256)").slice(2)));
    const lookedUp = recordFetches(({ body }) => uriCall(body) && [multi, single].some((c) => body!.toLowerCase().includes(c.contractAddress!.slice(2))));
    const budget = { tokenUriLookups: 3 };

    const mints = [...["5", "6", "7", "5"].map((tokenId) => ({ contract: multi.contractAddress!, tokenId })), { contract: single.contractAddress!, tokenId: "1" }];
    const fields = await assetFieldsFor(env.DB, getChain(env, 1868), mints, indexed, budget, await assetRows(env.DB, 1868, mints));

    expect(budget.tokenUriLookups).toBe(0);
    // Token ids are the calls' last 32 bytes.
    const idOf = (body: string) => BigInt(`0x${(JSON.parse(body) as { params: [{ data: string }] }).params[0].data.slice(-64)}`).toString();
    const looked = lookedUp.map(({ body }) => `${body!.toLowerCase().includes(multi.contractAddress!.slice(2)) ? "multi" : "single"}:${idOf(body!)}`);
    expect(looked.sort()).toEqual(["multi:6", "multi:7", "single:1"]);
    expect(fields.size).toBe(4);
  });
});
