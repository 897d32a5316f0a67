import { beforeAll, describe, expect, it, vi } from "vitest";
import { runInDurableObject } from "cloudflare:test";
import { chainClient, ETHER, fund, ownerOf, waitForTransaction } from "../helpers/chain";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { env } from "cloudflare:workers";
import { encodeFulfilment } from "../../src/chain/seaport-fulfil";
import { sequencerStub } from "../../src/services/durable-object-stubs";
import { canonicalOrder } from "../../src/services/orders/order-shape";
import { listingComponents, seaportJsCancel, seaportJsList, viemSignOrder } from "../helpers/seaport";
import { seaportAddress } from "../helpers/seaport-basic-order";
import { seaportAbi } from "../../src/chain/artifacts/seaport";
import { freshWallet } from "../helpers/wallets";
import { getAbiItem, toFunctionSelector, type Address } from "viem";
import { setApprovalForAll } from "../helpers/drops";

let creator: TestProject;
let buyer: TestProject;
let drop: { contractAddress: string };
let seller: Awaited<ReturnType<typeof freshWallet>>;

async function listToken(tokenId: string, price: bigint) {
  const listing = await seaportJsList({ privateKey: seller.privateKey, token: drop.contractAddress, tokenId, price });
  const accepted = await call("/v1/orders", { apiKey: buyer.apiKey, body: { signature: listing.signature, parameters: listing.parameters, chainId: 1868 } });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
  return accepted.body.orderHash as string;
}

const buy = (orderHashes: string[], project = buyer) =>
  call("/v1/project-wallet/orders/buy", { secretKey: project.secretKey, body: { chainId: 1868, orderHashes } });

beforeAll(async () => {
  [creator, buyer] = await Promise.all([createTestProject("Creator"), createTestProject("Buyer")]);
  await Promise.all([fund(creator.walletAddress), fund(buyer.walletAddress)]);
  seller = await freshWallet();
  const deployed = await call("/v1/project-wallet/drops/deploy", {
    secretKey: creator.secretKey,
    body: { name: "Buyable", metadataStorageType: "self-hosted", baseUri: "https://example.com/buy/" },
  });
  drop = deployed.body.drop;
  const claimed = await call("/v1/project-wallet/drops/claim", {
    secretKey: creator.secretKey,
    body: { contractAddress: drop.contractAddress, recipientAddress: seller.address, quantity: 11 },
  });
  await waitForTransaction(claimed.body.transactions[0].id, creator.apiKey);
});

describe("buying listed orders with the project wallet", () => {
  it("fills an order: ownership moves, the order is filled and a sale is recorded", async () => {
    const price = ETHER / 4n;
    const orderHash = await listToken("1", price);
    const sellerBefore = await chainClient().getBalance({ address: seller.address as Address });

    const { status, body } = await buy([orderHash]);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toHaveLength(1);
    expect(body[0].id).toBe(orderHash);
    const [item] = body[0].result;
    expect(item.type).toBe("transaction");
    expect(item.result).toMatchObject({ status: "pending", value: price.toString(), projectId: buyer.id });

    const settled = await waitForTransaction(item.result.id, buyer.apiKey);
    expect(settled.status).toBe("confirmed");
    expect((await ownerOf(drop.contractAddress, 1n)).toLowerCase()).toBe(buyer.walletAddress.toLowerCase());
    expect(await chainClient().getBalance({ address: seller.address as Address })).toBe(sellerBefore + price);

    const order = await call(`/v1/orders/${orderHash}`, { apiKey: buyer.apiKey });
    expect(order.body.status).toBe("filled");
    const asset = await call(`/v1/assets/1868/${drop.contractAddress}/1`, { apiKey: buyer.apiKey });
    expect(asset.body.bestListing).toBeNull();
    const owned = await call(`/v1/assets/explore?ownerAddress=${buyer.walletAddress}`, { apiKey: buyer.apiKey });
    expect(owned.body.data.map((a: { tokenId: string }) => a.tokenId)).toEqual(["1"]);
    const trending = await call("/v1/collections/trending?period=1h", { apiKey: buyer.apiKey });
    const entry = trending.body.data.find((e: { collection: { contractAddress: string } }) => e.collection.contractAddress === drop.contractAddress);
    expect(entry).toMatchObject({ volume: price.toString(), sales: 1 });
  });

  it("fills an order the basic-order route cannot take (it names a zone) through fulfillOrder", async () => {
    const price = ETHER / 8n;
    // Approved here too, so the test does not lean on an earlier test's seaport-js listing.
    await setApprovalForAll(seller, drop.contractAddress, seaportAddress());
    const parameters = listingComponents(seller.address, drop.contractAddress, "9", price, { zone: "0x000000000000000000000000000000000000dead" });
    const signature = await viemSignOrder(seller, parameters, { chainId: 1868, verifyingContract: seaportAddress() });
    const accepted = await call("/v1/orders", { apiKey: buyer.apiKey, body: { signature, parameters, chainId: 1868 } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);

    const { body } = await buy([accepted.body.orderHash]);
    const [item] = body[0].result;
    expect(item.type, JSON.stringify(item)).toBe("transaction");
    const settled = await waitForTransaction(item.result.id, buyer.apiKey);
    expect(settled.status).toBe("confirmed");
    const sent = await chainClient().getTransaction({ hash: settled.transactionHash });
    expect(sent.input.slice(0, 10)).toBe(toFunctionSelector(getAbiItem({ abi: seaportAbi, name: "fulfillOrder" }) as never));
    expect(sent.value).toBe(price);
    expect((await ownerOf(drop.contractAddress, 9n)).toLowerCase()).toBe(buyer.walletAddress.toLowerCase());
    expect((await call(`/v1/orders/${accepted.body.orderHash}`, { apiKey: buyer.apiKey })).body.status).toBe("filled");
  });

  it("returns an error item for an order that cannot be bought while the others go through", async () => {
    const good = await listToken("2", ETHER / 10n);
    const unknown = `0x${"EE".repeat(32)}`; // upper case: the result names it as sent
    const { status, body } = await buy([unknown, good]);
    expect(status).toBe(200);
    expect(body[0]).toEqual({ id: unknown, result: [{ type: "error", result: { code: "order_not_fillable", message: "no listing with this order hash is known to the service" } }] });
    expect(body[1].result[0].type).toBe("transaction");
    await waitForTransaction(body[1].result[0].result.id, buyer.apiKey);

    const again = await buy([good]);
    expect(again.body[0].result[0]).toMatchObject({ type: "error", result: { code: "order_not_fillable" } });
  });

  it("answers with the fill already sent when a later order fails inside the service", async () => {
    const [sent, broken] = [await listToken("10", ETHER / 20n), await listToken("11", ETHER / 20n)];
    // A stored order the service cannot read back stands in for any internal failure after a fill went out.
    await env.DB.prepare("update orders set parameters = '{' where order_hash = ?").bind(broken).run();
    const { status, body } = await buy([sent, broken]);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body[0].result).toEqual([{ type: "transaction", result: expect.objectContaining({ status: "pending" }) }]);
    expect(body[1]).toEqual({ id: broken, result: [{ type: "error", result: { code: "internal_error", message: expect.stringContaining("no fill of it was sent") } }] });
    expect((await waitForTransaction(body[0].result[0].result.id, buyer.apiKey)).status).toBe("confirmed");
    expect((await ownerOf(drop.contractAddress, 10n)).toLowerCase()).toBe(buyer.walletAddress.toLowerCase());
    // Alone, the broken order fails the whole request: nothing went out, so a retry is safe.
    expectEnvelope(await buy([broken]), 500, "internal_error");
  });

  it("refuses a second buy of an order while the first is pending, without sending anything", async () => {
    const orderHash = await listToken("6", ETHER / 20n);
    const first = await buy([orderHash]);
    const pending = first.body[0].result[0];
    expect(pending.type).toBe("transaction");
    const nonceBefore = await chainClient().getTransactionCount({ address: buyer.walletAddress as Address, blockTag: "pending" });

    const retried = await buy([orderHash]);
    expect(retried.body[0].result).toEqual([
      { type: "error", result: { code: "order_not_fillable", message: `this project's buy of the order is still pending (transaction ${pending.result.id})` } },
    ]);
    expect(await chainClient().getTransactionCount({ address: buyer.walletAddress as Address, blockTag: "pending" })).toBe(nonceBefore);
    expect((await waitForTransaction(pending.result.id, buyer.apiKey)).status).toBe("confirmed");
  });

  it("sends one fill when two requests for the same order arrive together", async () => {
    const orderHash = await listToken("7", ETHER / 20n);
    const nonceBefore = await chainClient().getTransactionCount({ address: buyer.walletAddress as Address, blockTag: "pending" });

    // Both pass the D1 check before either reaches the sequencer; its hold must stop the second.
    const answers = await Promise.all([buy([orderHash]), buy([orderHash])]);
    const items = answers.map((answer) => answer.body[0].result[0]);
    const sent = items.filter((item) => item.type === "transaction");
    expect(sent).toHaveLength(1);
    expect(items.find((item) => item.type === "error")).toEqual({
      type: "error",
      result: { code: "order_not_fillable", message: `this project's buy of the order is still pending (transaction ${sent[0].result.id})` },
    });
    expect(await chainClient().getTransactionCount({ address: buyer.walletAddress as Address, blockTag: "pending" })).toBe(nonceBefore + 1);
    expect((await waitForTransaction(sent[0].result.id, buyer.apiKey)).status).toBe("confirmed");
    expect((await ownerOf(drop.contractAddress, 7n)).toLowerCase()).toBe(buyer.walletAddress.toLowerCase());
    // Settling frees the hold (every earlier buy in this file has settled too).
    const holds = () =>
      runInDurableObject(sequencerStub(env, 1868, buyer.walletAddress), async (_instance, state) => [...(await state.storage.list({ prefix: "pending:" })).keys()]);
    await vi.waitFor(async () => expect(await holds()).toEqual([]));
  });

  it("replays a buy sent again under its Idempotency-Key, sending one fill, and refuses the key with other orders", async () => {
    const orderHash = await listToken("8", ETHER / 20n);
    const nonce = () => chainClient().getTransactionCount({ address: buyer.walletAddress as Address, blockTag: "pending" });
    const nonceBefore = await nonce();
    const headers = { "idempotency-key": `buy-${crypto.randomUUID()}` };
    const send = (orderHashes: string[]) => call("/v1/project-wallet/orders/buy", { secretKey: buyer.secretKey, body: { chainId: 1868, orderHashes }, headers });

    const first = await send([orderHash]);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body[0].result[0].type).toBe("transaction");
    const again = await send([orderHash]);
    expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    expect(again.body).toEqual(first.body);
    expectEnvelope(await send([orderHash, orderHash.replace(/.$/, (c) => (c === "0" ? "1" : "0"))]), 409, "idempotency_conflict");

    expect(await nonce()).toBe(nonceBefore + 1);
    expect((await waitForTransaction(first.body[0].result[0].result.id, buyer.apiKey)).status).toBe("confirmed");
    expect((await ownerOf(drop.contractAddress, 8n)).toLowerCase()).toBe(buyer.walletAddress.toLowerCase());
  });

  it("needs the secret key and valid input", async () => {
    const orderHash = await listToken("3", ETHER / 10n);
    expectEnvelope(await call("/v1/project-wallet/orders/buy", { apiKey: buyer.apiKey, body: { chainId: 1868, orderHashes: [orderHash] } }), 403, "forbidden");
    expectEnvelope(await call("/v1/project-wallet/orders/buy", { secretKey: buyer.secretKey, body: { chainId: 1868, orderHashes: [] } }), 400, "validation_error");
    expectEnvelope(await call("/v1/project-wallet/orders/buy", { secretKey: buyer.secretKey, body: { chainId: 1868, orderHashes: ["0x12"] } }), 400, "validation_error");
    const distinctHashes = (count: number) => Array.from({ length: count }, (_, i) => `0x${i.toString(16).padStart(64, "0")}`);
    const tooMany = expectEnvelope(
      await call("/v1/project-wallet/orders/buy", { secretKey: buyer.secretKey, body: { chainId: 1868, orderHashes: distinctHashes(21) } }),
      400,
      "validation_error",
    );
    expect(tooMany.details?.map((d) => d.path)).toEqual(["body.orderHashes"]);
    const repeated = expectEnvelope(
      await call("/v1/project-wallet/orders/buy", { secretKey: buyer.secretKey, body: { chainId: 1868, orderHashes: [orderHash, distinctHashes(1)[0], orderHash.toUpperCase().replace("0X", "0x")] } }),
      400,
      "validation_error",
    );
    expect(repeated.details).toEqual([{ path: "body.orderHashes.2", message: "the same order as orderHashes.0" }]);
    expectEnvelope(await call("/v1/project-wallet/orders/buy", { secretKey: buyer.secretKey, body: { chainId: 7, orderHashes: [orderHash] } }), 400, "unsupported_chain");
  });

  it("answers insufficient_funds per order when the wallet cannot pay", async () => {
    const broke = await createTestProject("Broke buyer");
    const orderHash = await listToken("3", ETHER);
    const { body } = await buy([orderHash], broke);
    expect(body[0].result[0]).toMatchObject({ type: "error", result: { code: "insufficient_funds" } });
  });
});

describe("orders that change outside the service", () => {
  const indexNow = () => call("/v1/admin/index", { admin: true, method: "POST" });

  it("records a cancellation made on Seaport directly at the buy that finds it, and again once indexed", async () => {
    const listing = await seaportJsList({ privateKey: seller.privateKey, token: drop.contractAddress, tokenId: "4", price: ETHER / 3n });
    const accepted = await call("/v1/orders", { apiKey: buyer.apiKey, body: { signature: listing.signature, parameters: listing.parameters, chainId: 1868 } });
    expect(accepted.status).toBe(201);
    await seaportJsCancel(seller.privateKey, listing.parameters);
    const notFillable = (message: string) => [{ id: accepted.body.orderHash, result: [{ type: "error", result: { code: "order_not_fillable", message } }] }];
    // Before the indexer has seen it, the buy asks Seaport itself.
    expect((await buy([accepted.body.orderHash])).body).toEqual(notFillable("the order is cancelled on Seaport"));
    // What the buy read is recorded: the listing stops being the token's best one without waiting for the indexer.
    expect((await call(`/v1/orders/${accepted.body.orderHash}`, { apiKey: buyer.apiKey })).body.status).toBe("cancelled");
    expect((await call(`/v1/assets/1868/${drop.contractAddress}/4`, { apiKey: buyer.apiKey })).body.bestListing).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await indexNow()).status).toBe(200);
    const order = await call(`/v1/orders/${accepted.body.orderHash}`, { apiKey: buyer.apiKey });
    expect(order.body.status).toBe("cancelled");
    const asset = await call(`/v1/assets/1868/${drop.contractAddress}/4`, { apiKey: buyer.apiKey });
    expect(asset.body.bestListing).toBeNull();
    expect((await buy([accepted.body.orderHash])).body).toEqual(notFillable("the order is cancelled"));
  });

  it("answers order_not_fillable for an order that has expired, sending nothing", async () => {
    // Room for listing and submitting before it ends, even on a slow machine.
    const endTime = Math.floor(Date.now() / 1000) + 6;
    const listing = await seaportJsList({ privateKey: seller.privateKey, token: drop.contractAddress, tokenId: "3", price: ETHER / 40n, endTime });
    const accepted = await call("/v1/orders", { apiKey: buyer.apiKey, body: { signature: listing.signature, parameters: listing.parameters, chainId: 1868 } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, endTime * 1000 - Date.now()) + 100));
    const nonceBefore = await chainClient().getTransactionCount({ address: buyer.walletAddress as Address, blockTag: "pending" });
    expect((await buy([accepted.body.orderHash])).body).toEqual([
      { id: accepted.body.orderHash, result: [{ type: "error", result: { code: "order_not_fillable", message: "the order has expired" } }] },
    ]);
    expect(await chainClient().getTransactionCount({ address: buyer.walletAddress as Address, blockTag: "pending" })).toBe(nonceBefore);
  });

  it("refuses an order a third party already filled on chain", async () => {
    const listing = await seaportJsList({ privateKey: seller.privateKey, token: drop.contractAddress, tokenId: "5", price: ETHER / 50n });
    const thirdParty = await freshWallet();
    const seaport = (JSON.parse(env.CHAINS) as Record<string, { seaportAddress: string }>)["1868"]!.seaportAddress;
    const fill = encodeFulfilment(canonicalOrder(listing.parameters), listing.signature);
    const receipt = await thirdParty.send({ to: seaport, data: fill.data, value: fill.value });
    expect(receipt.status).toBe("success");
    expectEnvelope(
      await call("/v1/orders", { apiKey: buyer.apiKey, body: { signature: listing.signature, parameters: listing.parameters, chainId: 1868 } }),
      422,
      "order_not_fillable",
    );
  });
});
