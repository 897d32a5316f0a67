// Seaport activity the service did not send: a fill by a third party, an on-chain cancel and a
// counter increment, picked up by the indexer; and the guarded statements applied twice.
import { env } from "cloudflare:workers";
import { encodeFunctionData, type Abi } from "viem";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { dropErc721Abi } from "../../src/chain/artifacts/drop-erc721";
import type { SeaportEvent } from "../../src/chain/seaport-events";
import { claimLog, newLogGuard } from "../../src/services/chain-events/apply";
import { seaportEventStatements } from "../../src/services/chain-events/seaport";
import { baselineErc721Abi, baselineErc721Bytecode } from "../contracts/artifacts/baseline-erc721";
import { randomHash, seedAsset, seedCollection, seedListing, uniqueAddress } from "../fixtures/seed";
import { chainClient, ETHER, fund, waitForTransaction } from "../helpers/chain";
import { interceptFetch } from "../helpers/fetch-spy";
import { call } from "../helpers/http";
import { fundedAccount, nextBlock, runIndex, type FundedAccount } from "../helpers/indexer";
import { createTestProject, type TestProject } from "../helpers/projects";
import { basicFulfilment, cancelCalldata, incrementCounterCalldata, seaportAddress, signListing } from "../helpers/seaport-basic-order";

let project: TestProject;
let seller: FundedAccount;
let contract: string;

const orderOf = (orderHash: string) =>
  env.DB.prepare("select status, fill_transaction_hash from orders where order_hash = ?").bind(orderHash).first<{ status: string; fill_transaction_hash: string | null }>();

const bestOrderHash = async (tokenId: string) =>
  (await env.DB.prepare("select best_order_hash from assets where contract_address = ? and token_id = ?").bind(contract, tokenId).first<{ best_order_hash: string | null }>())
    ?.best_order_hash ?? null;

/** A listing the service knows about (seeded as if submitted), recorded as the token's best listing. */
async function knownListing(tokenId: string, offerer: string, overrides: Record<string, unknown> = {}) {
  const listing = await seedListing({ chainId: 1868, contractAddress: contract, tokenId } as never, 10n ** 16n, { offerer, ...overrides });
  if (listing.status === "active") {
    await env.DB.prepare("update assets set best_price_sort = ?, best_order_hash = ? where contract_address = ? and token_id = ? and best_order_hash is null")
      .bind(listing.priceSort, listing.orderHash, contract, tokenId)
      .run();
  }
  return listing.orderHash;
}

/** Block numbers the Worker asks the node for (eth_getBlockByNumber) until the mocks are restored. */
function recordBlockReads() {
  const blocks: number[] = [];
  interceptFetch(({ body }, pass) => {
    if (body?.includes('"eth_getBlockByNumber"')) {
      const calls = [JSON.parse(body)].flat() as { method: string; params: unknown[] }[];
      for (const call of calls) if (call.method === "eth_getBlockByNumber" && typeof call.params[0] === "string" && call.params[0].startsWith("0x")) blocks.push(Number(call.params[0]));
    }
    return pass();
  });
  return blocks;
}

beforeAll(async () => {
  project = await createTestProject("Indexer Seaport events");
  await fund(project.walletAddress);
  seller = await fundedAccount();
  const deployed = await call("/v1/project-wallet/drops/deploy", {
    secretKey: project.secretKey,
    body: { name: "Seaport Traded", metadataStorageType: "self-hosted", baseUri: "https://example.com/traded/" },
  });
  expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
  contract = deployed.body.drop.contractAddress.toLowerCase();
  const claimed = await call("/v1/project-wallet/drops/claim", {
    secretKey: project.secretKey,
    body: { contractAddress: contract, recipientAddress: seller.address, quantity: 4 },
  });
  expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
  expect((await waitForTransaction(claimed.body.transactions[0].id, project.apiKey)).status).toBe("confirmed");
  await seller.send({ to: contract, data: encodeFunctionData({ abi: dropErc721Abi, functionName: "setApprovalForAll", args: [seaportAddress(), true] }) });
});

/**
 * A seller trading on Seaport outside the service: `tokens` tokens (ids from 0) of a collection the
 * service does not know, approved to Seaport, and a funded buyer.
 */
async function outsideMarketplace(tokens: bigint) {
  const outsider = await fundedAccount();
  const buyer = await fundedAccount();
  const elsewhere = await outsider.deploy(baselineErc721Abi as Abi, baselineErc721Bytecode);
  await outsider.send({ to: elsewhere.address, data: encodeFunctionData({ abi: baselineErc721Abi, functionName: "mintTo", args: [outsider.account.address, tokens] }) });
  await outsider.send({ to: elsewhere.address, data: encodeFunctionData({ abi: baselineErc721Abi, functionName: "setApprovalForAll", args: [seaportAddress(), true] }) });
  const listed = (tokenId: bigint) =>
    signListing({ seller: outsider.account, token: elsewhere.address, tokenId, price: ETHER / 100n, fee: ETHER / 2000n, feeRecipient: uniqueAddress() });
  return { outsider, buyer, listed };
}

describe("Seaport events from the chain", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("records a fill by a third party: sale, filled order, new owner, trending", async () => {
    const buyer = await fundedAccount();
    const feeRecipient = uniqueAddress();
    const listing = await signListing({ seller: seller.account, token: contract, tokenId: 1n, price: ETHER / 100n, fee: ETHER / 2000n, feeRecipient });
    const known = await knownListing("1", seller.address, { orderHash: listing.orderHash });
    const fill = await buyer.send({ to: seaportAddress(), data: basicFulfilment(listing), value: listing.price });
    await nextBlock();
    await runIndex();

    const block = await chainClient().getBlock({ blockNumber: fill.blockNumber });
    const sale = await env.DB.prepare("select * from sales where transaction_hash = ?").bind(fill.transactionHash).first();
    const collection = await env.DB.prepare("select id, slug from collections where contract_address = ?").bind(contract).first<{ id: string; slug: string }>();
    expect(sale).toMatchObject({
      chain_id: 1868,
      collection_id: collection!.id,
      contract_address: contract,
      token_id: "1",
      quantity: "1",
      order_hash: listing.orderHash,
      seller: seller.address,
      buyer: buyer.address,
      price: (ETHER / 100n).toString(),
      price_gwei: 10_000_000,
      price_sub_gwei: 0,
      currency_address: null,
      block_number: Number(fill.blockNumber),
      sold_at: Number(block.timestamp) * 1000,
    });
    expect(await orderOf(known)).toEqual({ status: "filled", fill_transaction_hash: fill.transactionHash });
    expect(await bestOrderHash("1")).toBeNull();

    const owned = await call(`/v1/assets/explore?ownerAddress=${buyer.address}`, { apiKey: project.apiKey });
    expect(owned.body.data.map((a: { tokenId: string }) => a.tokenId)).toEqual(["1"]);
    const trending = await call("/v1/collections/trending?chainId=1868&period=1h", { apiKey: project.apiKey });
    expect(trending.status).toBe(200);
    expect(trending.body.data).toEqual([expect.objectContaining({ volume: (ETHER / 100n).toString(), sales: 1, collection: expect.objectContaining({ slug: collection!.slug }) })]);
  });

  it("reads no block for a fill of a collection it does not know", async () => {
    const { buyer, listed } = await outsideMarketplace(1n);
    const listing = await listed(0n);
    const fill = await buyer.send({ to: seaportAddress(), data: basicFulfilment(listing), value: listing.price });
    await nextBlock();

    const blocksRead = recordBlockReads();
    const report = await runIndex();
    vi.restoreAllMocks();
    expect(report.toBlock).toBeGreaterThanOrEqual(Number(fill.blockNumber));
    expect(blocksRead).not.toContain(Number(fill.blockNumber));
    expect(await env.DB.prepare("select count(*) as n from sales where transaction_hash = ?").bind(fill.transactionHash).first()).toEqual({ n: 0 });
  });

  it("keeps no record of other marketplaces' Seaport events that concern nothing it holds", async () => {
    const { outsider, buyer, listed } = await outsideMarketplace(2n);
    const [sold, withdrawn] = [await listed(0n), await listed(1n)];
    const fill = await buyer.send({ to: seaportAddress(), data: basicFulfilment(sold), value: sold.price });
    const cancel = await outsider.send({ to: seaportAddress(), data: cancelCalldata(withdrawn) });
    const raise = await outsider.send({ to: seaportAddress(), data: incrementCounterCalldata() });
    await nextBlock();

    const report = await runIndex();
    expect(report.toBlock).toBeGreaterThanOrEqual(Number(raise.blockNumber));
    const claims = await env.DB.prepare("select count(*) as n from chain_events where transaction_hash in (?, ?, ?)")
      .bind(fill.transactionHash, cancel.transactionHash, raise.transactionHash)
      .first();
    expect(claims).toEqual({ n: 0 });
  });

  it("cancels an order cancelled on chain", async () => {
    const listing = await signListing({ seller: seller.account, token: contract, tokenId: 2n, price: ETHER / 50n, fee: 0n, feeRecipient: seller.address });
    const known = await knownListing("2", seller.address, { orderHash: listing.orderHash });
    expect(await bestOrderHash("2")).toBe(known);
    await seller.send({ to: seaportAddress(), data: cancelCalldata(listing) });
    await nextBlock();
    await runIndex();
    expect((await orderOf(known))?.status).toBe("cancelled");
    expect(await bestOrderHash("2")).toBeNull();
  });

  it("cancels every older order of an offerer whose counter was incremented", async () => {
    const other = uniqueAddress();
    const three = await knownListing("3", seller.address);
    const threeInactive = await knownListing("3", seller.address, { status: "inactive" });
    const four = await knownListing("4", seller.address);
    const othersFour = await knownListing("4", other, { unitPrice: (10n ** 17n).toString(), priceSort: (10n ** 17n).toString().padStart(78, "0") });
    const expired = await knownListing("4", seller.address, { status: "expired" });
    await seller.send({ to: seaportAddress(), data: incrementCounterCalldata() });
    await nextBlock();
    await runIndex();

    for (const hash of [three, threeInactive, four]) expect((await orderOf(hash))?.status, hash).toBe("cancelled");
    expect((await orderOf(expired))?.status).toBe("expired");
    expect((await orderOf(othersFour))?.status).toBe("active");
    expect(await bestOrderHash("3")).toBeNull();
    expect(await bestOrderHash("4")).toBe(othersFour);
  });
});

describe("seaportEventStatements", () => {
  const fulfilled = (overrides: Partial<Extract<SeaportEvent, { kind: "OrderFulfilled" }>>): Extract<SeaportEvent, { kind: "OrderFulfilled" }> => ({
    kind: "OrderFulfilled",
    orderHash: `0x${"ab".repeat(32)}`,
    offerer: uniqueAddress(),
    zone: "0x0000000000000000000000000000000000000000",
    recipient: uniqueAddress(),
    offer: [],
    consideration: [],
    transactionHash: randomHash(),
    logIndex: 3,
    blockNumber: 100,
    blockHash: randomHash(),
    ...overrides,
  });

  const apply = (event: SeaportEvent) => {
    const guard = newLogGuard(1868, event);
    return env.DB.batch([claimLog(env.DB, guard), ...seaportEventStatements(env.DB, guard, event, { chainId: 1868, blockTimestampMs: 1_700_000_000_000, nowMs: Date.now() })]);
  };

  it("applies a log once however often it is seen, and splits ERC-20 prices at 10^9", async () => {
    const collection = await seedCollection({ schema: "ERC1155" });
    const asset = await seedAsset(collection, "9");
    const order = await seedListing(asset, 10n ** 18n, { quantity: "3" });
    const currency = uniqueAddress();
    const event = fulfilled({
      orderHash: order.orderHash,
      offerer: order.offerer,
      offer: [{ itemType: 3, token: collection.contractAddress, identifier: "9", amount: "3" }],
      consideration: [
        { itemType: 1, token: currency, identifier: "0", amount: "1234567890000000000", recipient: order.offerer },
        { itemType: 1, token: currency, identifier: "0", amount: "123456789", recipient: uniqueAddress() },
      ],
    });
    await apply(event);
    await apply(event);
    const { results } = await env.DB.prepare("select * from sales where transaction_hash = ?").bind(event.transactionHash).all();
    expect(results).toEqual([
      expect.objectContaining({
        quantity: "3",
        price: "1234567890123456789",
        price_gwei: 1234567890,
        price_sub_gwei: 123456789,
        currency_address: currency,
        sold_at: 1_700_000_000_000,
        seller: order.offerer,
        buyer: event.recipient,
      }),
    ]);
    expect((await orderOf(order.orderHash))?.status).toBe("filled");
  });

  it("records no sale for unknown collections, bundles or mixed currencies", async () => {
    const collection = await seedCollection();
    const nft = (token: string, id: string) => ({ itemType: 2, token, identifier: id, amount: "1" });
    const pay = (itemType: number, token: string) => ({ itemType, token, identifier: "0", amount: "1000", recipient: uniqueAddress() });
    const zero = "0x0000000000000000000000000000000000000000";
    const events = [
      fulfilled({ offer: [nft(uniqueAddress(), "1")], consideration: [pay(0, zero)] }),
      fulfilled({ offer: [nft(collection.contractAddress, "1"), nft(collection.contractAddress, "2")], consideration: [pay(0, zero)] }),
      fulfilled({ offer: [nft(collection.contractAddress, "1")], consideration: [pay(0, zero), pay(1, uniqueAddress())] }),
      fulfilled({ offer: [{ itemType: 1, token: uniqueAddress(), identifier: "0", amount: "5" }], consideration: [{ ...nft(collection.contractAddress, "1"), recipient: uniqueAddress() }] }),
    ];
    for (const event of events) await apply(event);
    for (const event of events) {
      expect(await env.DB.prepare("select count(*) as n from sales where transaction_hash = ?").bind(event.transactionHash).first()).toEqual({ n: 0 });
    }
  });
});
