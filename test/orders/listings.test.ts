import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { encodeFunctionData, getAddress, parseAbi, toFunctionSelector, type Abi, type Address } from "viem";
import { testErc1155Abi, testErc1155Bytecode } from "../contracts/artifacts/test-erc1155";
import { testErc20Abi, testErc20Bytecode } from "../contracts/artifacts/test-erc20";
import { orderHashOf } from "../../src/chain/seaport";
import { canonicalOrder } from "../../src/services/orders/order-shape";
import { chainClient, contractAnswering, ETHER, rpc, waitForTransaction } from "../helpers/chain";
import { claimConfirmed, deployConfirmedDrop, setApprovalForAll } from "../helpers/drops";
import { interceptFetch } from "../helpers/fetch-spy";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { listingComponents, seaportJsList, viemSignOrder } from "../helpers/seaport";
import { freshWallet } from "../helpers/wallets";

type Wallet = Awaited<ReturnType<typeof freshWallet>>;

let project: TestProject;
let drop: { id: string; contractAddress: string };
let seller: Wallet;
let seller2: Wallet;
let seaport: string;
const chains = () => JSON.parse(env.CHAINS) as Record<string, { seaportAddress: string }>;

async function claimTo(recipientAddress: string, quantity: number) {
  const claimed = await call("/v1/project-wallet/drops/claim", {
    secretKey: project.secretKey,
    body: { contractAddress: drop.contractAddress, recipientAddress, quantity },
  });
  expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
  await waitForTransaction(claimed.body.transactions[0].id, project.apiKey);
  return claimed.body.assets.map((a: { tokenId: string }) => a.tokenId) as string[];
}

const submit = (body: unknown) => call("/v1/orders", { apiKey: project.apiKey, body });
const prepare = (body: unknown) => call("/v1/orders/listings", { apiKey: project.apiKey, body });

/** A registered ERC1155 collection in which `holder` has `amount` of token 1. */
async function erc1155Holding(holder: Wallet, amount: bigint) {
  const contract = await holder.deploy(testErc1155Abi as Abi, testErc1155Bytecode);
  await holder.send({ to: contract, data: encodeFunctionData({ abi: testErc1155Abi, functionName: "mint", args: [holder.account.address, 1n, amount] }) });
  const registered = await call("/v1/admin/collections", { admin: true, body: { contractAddress: contract, slug: `multi-${contract.slice(2, 12)}` } });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
  return contract;
}

beforeAll(async () => {
  seaport = chains()["1868"]!.seaportAddress;
  project = await createTestProject("Market");
  drop = await deployConfirmedDrop(project, { name: "Market drop", metadataStorageType: "self-hosted", baseUri: "https://example.com/m/", creatorFeeBps: 500 });
  [seller, seller2] = await Promise.all([freshWallet(), freshWallet()]);
  await claimTo(seller.address, 4); // tokens 1-4
  await claimTo(seller2.address, 2); // tokens 5-6
});

describe("listings from an independent client (seaport-js)", () => {
  it("accepts a seaport-js listing and reports the same order hash", async () => {
    const price = ETHER / 10n;
    const fee = price / 20n;
    const listing = await seaportJsList({ privateKey: seller.privateKey, token: drop.contractAddress, tokenId: "1", price, fees: [{ recipient: project.walletAddress, amount: fee }] });
    const { status, body } = await submit({ signature: listing.signature, parameters: listing.parameters, chainId: 1868 });
    expect(status, JSON.stringify(body)).toBe(201);
    expect(body.orderHash).toBe(listing.orderHash.toLowerCase());
    expect(listing.signature.length).toBe(2 + 128); // seaport-js signs EIP-2098 compact
    // Its parameters carry OrderParameters' totalOriginalConsiderationItems beside the components:
    // the one field beyond them that submission accepts.
    expect(Object.keys(listing.parameters)).toContain("totalOriginalConsiderationItems");
    expect(body).toMatchObject({ status: "active", unitPrice: price.toString(), quantity: "1", priceSymbol: "ETH", tokenId: "1", chainId: 1868 });
    expect(body.offerer.toLowerCase()).toBe(seller.address);

    const fetched = await call(`/v1/orders/${listing.orderHash}`, { apiKey: project.apiKey });
    expect(fetched.body).toEqual(body);
    const asset = await call(`/v1/assets/1868/${drop.contractAddress}/1`, { apiKey: project.apiKey });
    expect(asset.body.bestListing).toEqual({ unitPrice: price.toString(), priceSymbol: "ETH", quantity: "1", offerer: body.offerer, orderHash: body.orderHash });

    expectEnvelope(await submit({ signature: listing.signature, parameters: listing.parameters, chainId: 1868 }), 409, "conflict");
  });

  it("follows the cheapest listing as the asset's best listing", async () => {
    const cheap = await seaportJsList({ privateKey: seller.privateKey, token: drop.contractAddress, tokenId: "1", price: ETHER / 20n });
    const accepted = await submit({ signature: cheap.signature, parameters: cheap.parameters, chainId: 1868 });
    expect(accepted.status).toBe(201);
    const asset = await call(`/v1/assets/1868/${drop.contractAddress}/1`, { apiKey: project.apiKey });
    expect(asset.body.bestListing.orderHash).toBe(cheap.orderHash.toLowerCase());
    const listed = await call(`/v1/assets/explore?contractAddress=${drop.contractAddress}&hasListings=true`, { apiKey: project.apiKey });
    expect(listed.body.data.map((a: { tokenId: string }) => a.tokenId)).toEqual(["1"]);
  });
});

describe("what a listing must satisfy", () => {
  it("rejects a bad signature, another chain's or another contract's domain", async () => {
    const order = listingComponents(seller.address, drop.contractAddress, "2", ETHER);
    const good = await viemSignOrder(seller, order, { chainId: 1868, verifyingContract: seaport });
    const tampered = `${good.slice(0, -4)}${good.slice(-4) === "1b1b" ? "1c1c" : "1b1b"}`;
    expectEnvelope(await submit({ signature: tampered, parameters: order, chainId: 1868 }), 422, "invalid_signature");
    const otherChain = await viemSignOrder(seller, order, { chainId: 1, verifyingContract: seaport });
    expectEnvelope(await submit({ signature: otherChain, parameters: order, chainId: 1868 }), 422, "invalid_signature");
    const otherContract = await viemSignOrder(seller, order, { chainId: 1868, verifyingContract: "0x00000000000000ADc04C56Bf30aC9d3c0aAF14dC" });
    expectEnvelope(await submit({ signature: otherContract, parameters: order, chainId: 1868 }), 422, "invalid_signature");
    const bySomeoneElse = await viemSignOrder(seller2, order, { chainId: 1868, verifyingContract: seaport });
    expectEnvelope(await submit({ signature: bySomeoneElse, parameters: order, chainId: 1868 }), 422, "invalid_signature");
  });

  it("rejects expired (400), free (400), not owned, not approved and stale-counter orders", async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = listingComponents(seller.address, drop.contractAddress, "2", ETHER, { startTime: String(now - 7200), endTime: String(now - 3600) });
    const pastEnd = expectEnvelope(
      await submit({ signature: await viemSignOrder(seller, expired, { chainId: 1868, verifyingContract: seaport }), parameters: expired, chainId: 1868 }),
      400,
      "validation_error",
    );
    expect(pastEnd.details).toEqual([{ path: "body.parameters.endTime", message: "endTime is in the past" }]);
    const free = listingComponents(seller.address, drop.contractAddress, "2", 0n);
    const zeroPrice = expectEnvelope(
      await submit({ signature: await viemSignOrder(seller, free, { chainId: 1868, verifyingContract: seaport }), parameters: free, chainId: 1868 }),
      400,
      "validation_error",
    );
    expect(zeroPrice.details).toEqual([{ path: "body.parameters.consideration.0.startAmount", message: "must be above 0: Seaport cannot fill an order with a payment of 0" }]);
    const notOwned = listingComponents(seller.address, drop.contractAddress, "5", ETHER);
    expectEnvelope(
      await submit({ signature: await viemSignOrder(seller, notOwned, { chainId: 1868, verifyingContract: seaport }), parameters: notOwned, chainId: 1868 }),
      422,
      "not_token_owner",
    );
    const notApproved = listingComponents(seller2.address, drop.contractAddress, "5", ETHER);
    expectEnvelope(
      await submit({ signature: await viemSignOrder(seller2, notApproved, { chainId: 1868, verifyingContract: seaport }), parameters: notApproved, chainId: 1868 }),
      422,
      "not_approved",
    );
    const staleCounter = listingComponents(seller.address, drop.contractAddress, "2", ETHER, { counter: "7" });
    expectEnvelope(
      await submit({ signature: await viemSignOrder(seller, staleCounter, { chainId: 1868, verifyingContract: seaport }), parameters: staleCounter, chainId: 1868 }),
      422,
      "order_not_fillable",
    );
  });

  it("rejects malformed orders with the field named", async () => {
    const order = listingComponents(seller.address, drop.contractAddress, "2", ETHER);
    const signature = await viemSignOrder(seller, order, { chainId: 1868, verifyingContract: seaport });
    const max = (2n ** 256n - 1n).toString();
    const maxPayment = { ...order.consideration[0]!, startAmount: max, endAmount: max };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...order, offerer: "0x12" }, "body.parameters.offerer"],
      [{ ...order, offer: [] }, "body.parameters.offer"],
      [{ ...order, consideration: [{ ...order.consideration[0], recipient: seller2.address }] }, "body.parameters.consideration.0.recipient"],
      [{ ...order, orderType: 2 }, "body.parameters.orderType"],
      [{ ...order, salt: "-1" }, "body.parameters.salt"],
      [{ ...order, consideration: [maxPayment, { ...maxPayment, recipient: seller2.address }] }, "body.parameters.consideration"],
    ];
    for (const [parameters, path] of cases) {
      const error = expectEnvelope(await submit({ signature, parameters, chainId: 1868 }), 400, "validation_error");
      expect(error.details?.map((d) => d.path), path).toContain(path);
    }
    // Exactly Seaport's fields, as every body is strict: anything else is named where it is, even
    // the keys JSON.parse keeps as own properties that objects also inherit.
    const raw = (parameters: string) => call("/v1/orders", { apiKey: project.apiKey, rawBody: `{"signature":"${signature}","chainId":1868,"parameters":${parameters}}` });
    const withKey = (json: string, key: string) => `${json.slice(0, -1)},${JSON.stringify(key)}:{"isAdmin":true}}`;
    const orderJson = JSON.stringify(order);
    const unknown: [string, string][] = [
      [JSON.stringify({ ...order, royaltyBps: 500 }), "body.parameters.royaltyBps"],
      [withKey(orderJson, "__proto__"), "body.parameters.__proto__"],
      [withKey(orderJson, "constructor"), "body.parameters.constructor"],
      [orderJson.replace('"offer":[{', '"offer":[{"__proto__":{"isAdmin":true},'), "body.parameters.offer.0.__proto__"],
      [JSON.stringify({ ...order, consideration: [{ ...order.consideration[0], memo: "x" }, ...order.consideration.slice(1)] }), "body.parameters.consideration.0.memo"],
    ];
    for (const [parameters, path] of unknown) {
      const error = expectEnvelope(await raw(parameters), 400, "validation_error");
      expect(error.details, path).toEqual([{ path, message: "unknown field" }]);
    }
    expectEnvelope(await submit({ signature: "0x1234", parameters: order, chainId: 1868 }), 422, "invalid_signature");
    // 78 digits pass the digit count but not uint256 (viem would refuse to hash them).
    const tooBig = expectEnvelope(await submit({ signature, parameters: { ...order, salt: "9".repeat(78) }, chainId: 1868 }), 400, "validation_error");
    expect(tooBig.details?.map((d) => d.path)).toEqual(["body.parameters.salt"]);
    expectEnvelope(await submit({ signature, parameters: order, chainId: 99 }), 400, "unsupported_chain");
    // Both shapes at once: the fields that do not belong are named, not the whole body.
    const both = expectEnvelope(await submit({ signature, orderHash: `0x${"ab".repeat(32)}`, parameters: order, chainId: 1868 }), 400, "validation_error");
    expect(both.details?.length).toBeGreaterThan(0);
    for (const detail of both.details ?? []) expect(detail).toMatchObject({ path: expect.stringMatching(/^body\.(parameters|chainId|orderHash)$/), message: "unknown field" });
    const noOrder = expectEnvelope(await submit({ signature }), 400, "validation_error");
    expect(noOrder.details?.map((d) => d.path)).toEqual(["body.orderHash"]);
    // The body is one of two shapes: a mistake inside `parameters` is named, not "no orderHash".
    const { zoneHash: _dropped, ...withoutZoneHash } = order;
    const missing = expectEnvelope(await submit({ signature, parameters: withoutZoneHash, chainId: 1868 }), 400, "validation_error");
    expect(missing.details?.map((d) => d.path)).toEqual(["body.parameters.zoneHash"]);
    const mistyped = { ...order, offer: [{ ...order.offer[0]!, itemType: "2" }] };
    const wrongType = expectEnvelope(await submit({ signature, parameters: mistyped, chainId: 1868 }), 400, "validation_error");
    expect(wrongType.details?.map((d) => d.path)).toEqual(["body.parameters.offer.0.itemType"]);
    // Thousands of empty items are one "too many" detail, not twelve apiece built by zod.
    const flood = expectEnvelope(await submit({ signature, parameters: { ...order, consideration: Array.from({ length: 5_000 }, () => ({})) }, chainId: 1868 }), 400, "validation_error");
    expect(flood.details).toEqual([{ path: "body.parameters.consideration", message: expect.stringContaining("100") }]);
    expectEnvelope(await submit({ signature, orderHash: `0x${"ab".repeat(32)}` }), 404, "not_found");
    expectEnvelope(await call(`/v1/orders/0x${"cd".repeat(32)}`, { apiKey: project.apiKey }), 404, "not_found");
    expectEnvelope(await call("/v1/orders/0x1234", { apiKey: project.apiKey }), 400, "validation_error");
  });

  it("lists an order that starts beyond the last representable date, shown at that date", async () => {
    await setApprovalForAll(seller, drop.contractAddress, seaport);
    const far = "9".repeat(20); // seconds: past JavaScript's Date range
    const order = listingComponents(seller.address, drop.contractAddress, "3", ETHER, { startTime: far, endTime: `1${"0".repeat(20)}` });
    const listed = await submit({ signature: await viemSignOrder(seller, order, { chainId: 1868, verifyingContract: seaport }), parameters: order, chainId: 1868 });
    expect(listed.status, JSON.stringify(listed.body)).toBe(201);
    expect(listed.body.startTime).toBe(new Date(8.64e15).toISOString());
    expect(listed.body.parameters.startTime).toBe(far);
  });
});

describe("duplicate submissions", () => {
  it("answers 409 to one of two identical submissions sent at once", async () => {
    await setApprovalForAll(seller, drop.contractAddress, seaport);
    const order = listingComponents(seller.address, drop.contractAddress, "4", ETHER);
    const body = { signature: await viemSignOrder(seller, order, { chainId: 1868, verifyingContract: seaport }), parameters: order, chainId: 1868 };
    const answers = await Promise.all([submit(body), submit(body)]);
    expect(answers.map((a) => a.status).sort(), JSON.stringify(answers.map((a) => a.body))).toEqual([201, 409]);
    const refused = expectEnvelope(answers.find((a) => a.status === 409)!, 409, "conflict");
    const sequential = expectEnvelope(await submit(body), 409, "conflict");
    expect(refused.message).toBe(sequential.message);
  });
});

describe("Idempotency-Key on the listing endpoints", () => {
  it("replays a submission and a preparation sent again under their key, and refuses the key with another body", async () => {
    const [tokenId] = await claimTo(seller.address, 1);
    await setApprovalForAll(seller, drop.contractAddress, seaport);
    const order = listingComponents(seller.address, drop.contractAddress, tokenId!, ETHER);
    const body = { signature: await viemSignOrder(seller, order, { chainId: 1868, verifyingContract: seaport }), parameters: order, chainId: 1868 };
    const submitHeaders = { "idempotency-key": `submit-${crypto.randomUUID()}` };
    const first = await call("/v1/orders", { apiKey: project.apiKey, body, headers: submitHeaders });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    // Without the key this would be a 409 `conflict` (already listed): the retry gets its answer.
    const again = await call("/v1/orders", { apiKey: project.apiKey, body, headers: submitHeaders });
    expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([201, "true"]);
    expect(again.body).toEqual(first.body);
    expectEnvelope(await call("/v1/orders", { apiKey: project.apiKey, body: { ...body, chainId: 1946 }, headers: submitHeaders }), 409, "idempotency_conflict");

    const items = [{ contractAddress: drop.contractAddress, tokenId: tokenId!, unitPrice: (ETHER / 2n).toString() }];
    const prepareHeaders = { "idempotency-key": `prepare-${crypto.randomUUID()}` };
    const prepared = await call("/v1/orders/listings", { apiKey: project.apiKey, body: { chainId: 1868, offerer: seller.address, items }, headers: prepareHeaders });
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    const replayed = await call("/v1/orders/listings", { apiKey: project.apiKey, body: { chainId: 1868, offerer: seller.address, items }, headers: prepareHeaders });
    expect([replayed.status, replayed.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    expect(replayed.body).toEqual(prepared.body);
    // A new preparation draws a new salt: the replay is the stored answer, not a re-run.
    const fresh = await prepare({ chainId: 1868, offerer: seller.address, items });
    expect(fresh.body.orders[0].orderHash).not.toBe(prepared.body.orders[0].orderHash);
    expectEnvelope(
      await call("/v1/orders/listings", { apiKey: project.apiKey, body: { chainId: 1868, offerer: seller.address, items: [{ ...items[0]!, unitPrice: ETHER.toString() }] }, headers: prepareHeaders }),
      409,
      "idempotency_conflict",
    );
  });
});

describe("prepared listings (two steps)", () => {
  it("returns an approve step and typed data with the creator fee, then accepts the signature", async () => {
    const prepared = await call("/v1/orders/listings", {
      apiKey: project.apiKey,
      body: { chainId: 1868, offerer: seller2.address, items: [{ contractAddress: drop.contractAddress, tokenId: "6", unitPrice: ETHER.toString() }] },
    });
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    const [approve, sign] = prepared.body.steps;
    expect(approve).toMatchObject({ id: "approve", kind: "transaction" });
    expect(sign).toMatchObject({ id: "sign", kind: "signature" });
    const [{ orderHash, typedData }] = prepared.body.orders;
    expect(typedData.domain).toEqual({ name: "Seaport", version: "1.6", chainId: 1868, verifyingContract: seaport });
    const consideration = typedData.message.consideration;
    expect(consideration).toHaveLength(2);
    // Addresses come back EIP-55 checksummed (DESIGN §3), the signed order's as well.
    expect(consideration[1]).toMatchObject({ startAmount: (ETHER / 20n).toString(), recipient: getAddress(project.walletAddress) });
    expect(typedData.message.offerer).toBe(getAddress(seller2.address));
    expect(typedData.message.offer[0].token).toBe(getAddress(drop.contractAddress));
    expect(BigInt(consideration[0].startAmount) + BigInt(consideration[1].startAmount)).toBe(ETHER);

    const approval = approve.items[0].data;
    await seller2.send({ to: approval.to, data: approval.data });
    const isApproved = await chainClient().readContract({
      address: drop.contractAddress as Address,
      abi: parseAbi(["function isApprovedForAll(address, address) view returns (bool)"]),
      functionName: "isApprovedForAll",
      args: [seller2.address, seaport as Address],
    });
    expect(isApproved).toBe(true);

    const signature = await viemSignOrder(seller2, typedData.message, { chainId: 1868, verifyingContract: seaport });
    const listed = await submit({ signature, orderHash });
    expect(listed.status, JSON.stringify(listed.body)).toBe(201);
    expect(listed.body).toMatchObject({ orderHash, status: "active", unitPrice: ETHER.toString() });
    expect(listed.body.parameters).toEqual(typedData.message);
  });

  it("asks for no approval when the ERC721 token alone is approved to Seaport", async () => {
    const holder = await freshWallet();
    const [tokenId] = await claimConfirmed(project, { contractAddress: drop.contractAddress, recipientAddress: holder.address });
    await holder.send({ to: drop.contractAddress, data: encodeFunctionData({ abi: parseAbi(["function approve(address, uint256)"]), functionName: "approve", args: [seaport as Address, BigInt(tokenId!)] }) });

    const prepared = await prepare({ chainId: 1868, offerer: holder.address, items: [{ contractAddress: drop.contractAddress, tokenId, unitPrice: "1000" }] });
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    expect(prepared.body.steps.map((step: { id: string }) => step.id)).toEqual(["sign"]);
    const [{ orderHash, typedData }] = prepared.body.orders;
    const listed = await submit({ signature: await viemSignOrder(holder, typedData.message, { chainId: 1868, verifyingContract: seaport }), orderHash });
    expect(listed.status, JSON.stringify(listed.body)).toBe(201);
  });

  it("keeps a prepared order for its project for one hour; to others, and once KV has let it expire, its hash is a 404", async () => {
    const prepared = await prepare({ chainId: 1868, offerer: seller2.address, items: [{ contractAddress: drop.contractAddress, tokenId: "6", unitPrice: "1000" }] });
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    const [{ orderHash, typedData }] = prepared.body.orders;
    const { keys } = await env.KV.list({ prefix: `order-draft:${orderHash.toLowerCase()}` });
    expect(keys).toHaveLength(1);
    const [draft] = keys as [KVNamespaceListKey<unknown>];
    const secondsLeft = (draft.expiration ?? Infinity) - Date.now() / 1000;
    expect(secondsLeft).toBeGreaterThan(3600 - 60);
    expect(secondsLeft).toBeLessThanOrEqual(3600);

    const signature = await viemSignOrder(seller2, typedData.message, { chainId: 1868, verifyingContract: seaport });
    // The draft is the preparing project's: to another project it does not exist.
    const other = await createTestProject("Another marketplace");
    const foreign = expectEnvelope(await call("/v1/orders", { apiKey: other.apiKey, body: { signature, orderHash } }), 404, "not_found");
    expect(foreign.message).toContain("prepared order");

    // What KV does at the expiration it was given.
    await env.KV.delete(draft.name);
    const expired = expectEnvelope(await submit({ signature, orderHash }), 404, "not_found");
    expect(expired.message).toContain("drafts expire after 1 h");
  });

  it("refuses to prepare listings of tokens the offerer does not own or of unknown collections", async () => {
    expectEnvelope(
      await call("/v1/orders/listings", {
        apiKey: project.apiKey,
        body: { chainId: 1868, offerer: seller2.address, items: [{ contractAddress: drop.contractAddress, tokenId: "1", unitPrice: "1" }] },
      }),
      422,
      "not_token_owner",
    );
    expectEnvelope(
      await call("/v1/orders/listings", {
        apiKey: project.apiKey,
        body: { chainId: 1868, offerer: seller2.address, items: [{ contractAddress: "0x000000000000000000000000000000000000beef", tokenId: "1", unitPrice: "1" }] },
      }),
      404,
      "not_found",
    );
    expectEnvelope(
      await call("/v1/orders/listings", {
        apiKey: project.apiKey,
        body: { chainId: 1868, offerer: seller2.address, items: [{ contractAddress: drop.contractAddress, tokenId: "6", unitPrice: "0" }] },
      }),
      400,
      "validation_error",
    );
  });

  it("prices in native currency when currencyAddress is the zero address, and refuses a currency that is not an ERC20", async () => {
    const item = { contractAddress: drop.contractAddress, tokenId: "5", unitPrice: "1000" };
    const zero = await prepare({ chainId: 1868, offerer: seller2.address, items: [{ ...item, currencyAddress: "0x0000000000000000000000000000000000000000" }] });
    expect(zero.status, JSON.stringify(zero.body)).toBe(200);
    const native = await prepare({ chainId: 1868, offerer: seller2.address, items: [item] });
    for (const { typedData } of [zero.body.orders[0], native.body.orders[0]]) {
      // The seller's payment and the creator fee.
      expect(typedData.message.consideration).toHaveLength(2);
      for (const payment of typedData.message.consideration) expect(payment).toMatchObject({ itemType: 0, token: "0x0000000000000000000000000000000000000000" });
    }

    // An address without code, and a contract without balanceOf (Seaport itself), cannot be paid in.
    for (const currencyAddress of ["0x000000000000000000000000000000000000dEaD", seaport]) {
      const refused = expectEnvelope(await prepare({ chainId: 1868, offerer: seller2.address, items: [item, { ...item, currencyAddress }] }), 400, "validation_error");
      expect(refused.details).toEqual([{ path: "body.items.1.currencyAddress", message: "is not an ERC20 token on this chain (no balanceOf)" }]);
    }
    // An ERC721 answers balanceOf too, but a Seaport "amount" of it would be a token id.
    const nft = expectEnvelope(await prepare({ chainId: 1868, offerer: seller2.address, items: [{ ...item, currencyAddress: drop.contractAddress }] }), 400, "validation_error");
    expect(nft.details).toEqual([{ path: "body.items.0.currencyAddress", message: "is an ERC721 NFT contract, not an ERC20 token" }]);
  });

  it("refuses to prepare an order Seaport could not fill: a 100 % creator fee, or an ERC20 fee to the zero address", async () => {
    const wholeFee = await deployConfirmedDrop(project, { name: "All fee", metadataStorageType: "self-hosted", baseUri: "https://example.com/all/", creatorFeeBps: 10_000 });
    const toNobody = await deployConfirmedDrop(project, {
      name: "Fee to nobody",
      metadataStorageType: "self-hosted",
      baseUri: "https://example.com/nobody/",
      creatorFeeBps: 500,
      creatorFeeAddress: "0x0000000000000000000000000000000000000000",
    });
    const holder = await freshWallet();
    await claimConfirmed(project, { contractAddress: wholeFee.contractAddress, recipientAddress: holder.address });
    await claimConfirmed(project, { contractAddress: toNobody.contractAddress, recipientAddress: holder.address });
    const token = await holder.deploy(testErc20Abi, testErc20Bytecode);

    const allFee = expectEnvelope(await prepare({ chainId: 1868, offerer: holder.address, items: [{ contractAddress: wholeFee.contractAddress, tokenId: "1", unitPrice: "1000" }] }), 400, "validation_error");
    expect(allFee.details).toEqual([{ path: "body.items.0.contractAddress", message: expect.stringContaining("creator fee is 100 %") }]);
    const erc20 = { contractAddress: toNobody.contractAddress, tokenId: "1", unitPrice: "1000", currencyAddress: token };
    const zeroRecipient = expectEnvelope(await prepare({ chainId: 1868, offerer: holder.address, items: [erc20] }), 400, "validation_error");
    expect(zeroRecipient.details).toEqual([{ path: "body.items.0.currencyAddress", message: expect.stringContaining("zero address") }]);
    // In native currency the fee to the zero address can be paid (it is burned): prepared.
    const { currencyAddress: _erc20, ...native } = erc20;
    expect((await prepare({ chainId: 1868, offerer: holder.address, items: [native] })).status).toBe(200);
  });

  it("refuses to prepare or list a badge drop's token: it is soulbound, so Seaport could never fill the order", async () => {
    const badge = await deployConfirmedDrop(project, { name: "Badge", mode: "badge", metadataStorageType: "self-hosted", baseUri: "https://example.com/badge/" });
    const holder = await freshWallet();
    const [tokenId] = await claimConfirmed(project, { contractAddress: badge.contractAddress, recipientAddress: holder.address });
    // The badge contract reverts approvals too, so an approve step could never succeed, and a
    // signed listing is refused as unfillable, not as "not approved" (which asks for that step).
    await expect(setApprovalForAll(holder, badge.contractAddress, seaport)).rejects.toThrow(/reverted/);

    const prepared = expectEnvelope(await prepare({ chainId: 1868, offerer: holder.address, items: [{ contractAddress: badge.contractAddress, tokenId, unitPrice: "1000" }] }), 400, "validation_error");
    expect(prepared.details).toEqual([{ path: "body.items.0.contractAddress", message: expect.stringContaining("soulbound") }]);
    const parameters = listingComponents(holder.address, badge.contractAddress, tokenId!, 1000n);
    const signature = await viemSignOrder(holder, parameters, { chainId: 1868, verifyingContract: seaport as Address });
    const listed = expectEnvelope(await submit({ chainId: 1868, signature, parameters }), 422, "order_not_fillable");
    expect(listed.message).toContain("soulbound");
    expect((await call(`/v1/orders/${orderHashOf(canonicalOrder(parameters))}`, { apiKey: project.apiKey })).status).toBe(404);
  });

  it("refuses an ERC1155 listing whose total price does not fit in uint256", async () => {
    const holder = await freshWallet();
    const multi = await erc1155Holding(holder, 2n);
    const error = expectEnvelope(
      await prepare({ chainId: 1868, offerer: holder.address, items: [{ contractAddress: multi, tokenId: "1", quantity: "2", unitPrice: (2n ** 255n).toString() }] }),
      400,
      "validation_error",
    );
    expect(error.details?.map((d) => d.path)).toEqual(["body.items.0.unitPrice"]);
  });

  it("rejects listing times that are not ISO date-times, before 1970, or ending in the past, with the field named", async () => {
    const item = { contractAddress: drop.contractAddress, tokenId: "2", unitPrice: "1" };
    const anHourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const cases: [Record<string, string>, string][] = [
      [{ startTime: "x" }, "body.startTime"],
      [{ endTime: "2026-13-45T00:00:00Z" }, "body.endTime"],
      [{ startTime: "1969-12-31T00:00:00Z", endTime: "2999-01-01T00:00:00Z" }, "body.startTime"],
      [{ startTime: "2020-01-01T00:00:00Z", endTime: anHourAgo }, "body.endTime"],
    ];
    for (const [times, path] of cases) {
      const error = expectEnvelope(await prepare({ chainId: 1868, offerer: seller.address, items: [item], ...times }), 400, "validation_error");
      expect(error.details?.map((d) => d.path), JSON.stringify(times)).toEqual([path]);
    }
  });
});

describe("a contract wallet as offerer (EIP-1271)", () => {
  it("lists the order when the wallet's isValidSignature says yes", async () => {
    // A wallet whose isValidSignature answers the magic value 0x1626ba7e (a left-aligned bytes4) for anything.
    const wallet = getAddress(await contractAnswering(`1626ba7e${"00".repeat(28)}`));
    await rpc("anvil_setBalance", [wallet, `0x${ETHER.toString(16)}`]);
    const [tokenId] = await claimTo(seller.address, 1);
    await seller.send({
      to: drop.contractAddress,
      data: encodeFunctionData({ abi: parseAbi(["function transferFrom(address, address, uint256)"]), functionName: "transferFrom", args: [seller.address, wallet, BigInt(tokenId!)] }),
    });
    // The wallet approves Seaport (sent as the contract itself: anvil impersonation).
    await rpc("anvil_impersonateAccount", [wallet]);
    const approval = await rpc<string>("eth_sendTransaction", [
      { from: wallet, to: drop.contractAddress, data: encodeFunctionData({ abi: parseAbi(["function setApprovalForAll(address, bool)"]), functionName: "setApprovalForAll", args: [seaport as Address, true] }) },
    ]);
    await rpc("anvil_stopImpersonatingAccount", [wallet]);
    await chainClient().waitForTransactionReceipt({ hash: approval as `0x${string}` });

    const order = listingComponents(wallet.toLowerCase(), drop.contractAddress, tokenId!, ETHER / 9n);
    // Not an ECDSA signature of anything: only the wallet's own answer can make it valid.
    const listed = await submit({ signature: `0x${"11".repeat(65)}`, parameters: order, chainId: 1868 });
    expect(listed.status, JSON.stringify(listed.body)).toBe(201);
    expect(listed.body).toMatchObject({ offerer: wallet, status: "active" });
  });

  it("refuses the signature when the wallet's answer has anything after the magic value in its word", async () => {
    // Seaport compares the whole first word of the answer (BadContractSignature otherwise); read
    // as a bytes4, this answer would look like a yes.
    const wallet = getAddress(await contractAnswering(`1626ba7e${"00".repeat(27)}01`));
    const order = listingComponents(wallet.toLowerCase(), drop.contractAddress, "1", ETHER / 9n);
    expectEnvelope(await submit({ signature: `0x${"11".repeat(65)}`, parameters: order, chainId: 1868 }), 422, "invalid_signature");
  });
});

describe("a listing that has not started yet", () => {
  it("is listed, but is neither the token's best listing nor buyable until it starts; the sweep then shows it", async () => {
    const [tokenId] = await claimTo(seller.address, 1);
    await setApprovalForAll(seller, drop.contractAddress, seaport);
    // Room for the submit, the read and the refused buy before the start, even on a slow machine.
    const startsAt = Math.floor(Date.now() / 1000) + 8;
    const order = listingComponents(seller.address, drop.contractAddress, tokenId!, ETHER / 7n, { startTime: String(startsAt) });
    const listed = await submit({ signature: await viemSignOrder(seller, order, { chainId: 1868, verifyingContract: seaport }), parameters: order, chainId: 1868 });
    expect(listed.status, JSON.stringify(listed.body)).toBe(201);
    expect(listed.body.status).toBe("active");
    const bestListing = async () => (await call(`/v1/assets/1868/${drop.contractAddress}/${tokenId}`, { apiKey: project.apiKey })).body.bestListing;
    expect(await bestListing()).toBeNull();

    const bought = await call("/v1/project-wallet/orders/buy", { secretKey: project.secretKey, body: { chainId: 1868, orderHashes: [listed.body.orderHash] } });
    expect(bought.body[0].result).toEqual([
      { type: "error", result: { code: "order_not_fillable", message: `the order starts at ${new Date(startsAt * 1000).toISOString()}` } },
    ]);

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, startsAt * 1000 - Date.now()) + 100));
    expect((await call("/v1/admin/index", { admin: true, method: "POST" })).status).toBe(200);
    expect(await bestListing()).toMatchObject({ orderHash: listed.body.orderHash, unitPrice: (ETHER / 7n).toString() });
  });
});

describe("ownership and approval reads that get no answer from the node", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** The node is unreachable for eth_calls of this function (the Worker shares the test's fetch). */
  function unreachableFor(signature: string) {
    const selector = toFunctionSelector(signature);
    interceptFetch(async ({ body = "" }, pass) => {
      if (body.includes('"eth_call"') && body.includes(`"${selector}`)) throw new TypeError("Network connection lost.");
      return pass();
    });
  }
  const item = (tokenId: string) => ({ contractAddress: drop.contractAddress, tokenId, unitPrice: "1" });

  it("answers 502 chain_unavailable, not 422 or 500, and a revert still means not owned", async () => {
    const holder = await freshWallet();
    const multi = await erc1155Holding(holder, 1n);

    unreachableFor("function ownerOf(uint256)");
    expectEnvelope(await prepare({ chainId: 1868, offerer: seller.address, items: [item("2")] }), 502, "chain_unavailable");
    const order = listingComponents(seller.address, drop.contractAddress, "2", ETHER);
    const signature = await viemSignOrder(seller, order, { chainId: 1868, verifyingContract: seaport });
    expectEnvelope(await submit({ signature, parameters: order, chainId: 1868 }), 502, "chain_unavailable");
    vi.restoreAllMocks();

    unreachableFor("function isApprovedForAll(address, address)");
    expectEnvelope(await prepare({ chainId: 1868, offerer: seller.address, items: [item("2")] }), 502, "chain_unavailable");
    vi.restoreAllMocks();

    unreachableFor("function balanceOf(address, uint256)");
    expectEnvelope(
      await prepare({ chainId: 1868, offerer: holder.address, items: [{ contractAddress: multi, tokenId: "1", unitPrice: "1" }] }),
      502,
      "chain_unavailable",
    );
    vi.restoreAllMocks();

    // ownerOf reverts for a token that does not exist: the node answered, so the offerer does not own it.
    expectEnvelope(await prepare({ chainId: 1868, offerer: seller.address, items: [item("999999")] }), 422, "not_token_owner");
  });

  it("answers 502 when the listing currency's balanceOf or symbol gets no answer, storing nothing", async () => {
    const token = await seller.deploy(testErc20Abi, testErc20Bytecode);
    const inToken = listingComponents(seller.address, drop.contractAddress, "2", ETHER, {
      consideration: [{ itemType: 1, token, identifierOrCriteria: "0", startAmount: "1000", endAmount: "1000", recipient: seller.address }],
    });
    const signature = await viemSignOrder(seller, inToken, { chainId: 1868, verifyingContract: seaport });

    unreachableFor("function balanceOf(address)");
    expectEnvelope(await prepare({ chainId: 1868, offerer: seller.address, items: [{ ...item("2"), currencyAddress: token }] }), 502, "chain_unavailable");
    expectEnvelope(await submit({ signature, parameters: inToken, chainId: 1868 }), 502, "chain_unavailable");
    vi.restoreAllMocks();

    // Not a stored "ERC20" guess: the symbol is read again when the client retries.
    unreachableFor("function symbol()");
    expectEnvelope(await submit({ signature, parameters: inToken, chainId: 1868 }), 502, "chain_unavailable");
    vi.restoreAllMocks();
    const hash = orderHashOf(canonicalOrder(inToken));
    expectEnvelope(await call(`/v1/orders/${hash}`, { apiKey: project.apiKey }), 404, "not_found");
  });
});
