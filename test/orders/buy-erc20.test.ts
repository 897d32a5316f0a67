// Buying listings priced in an ERC20: the project wallet approves Seaport once per token (an
// unlimited approval on the nonce before the fill), pays from its token balance, and a request
// whose orders together exceed that balance gets insufficient_funds for the ones it cannot pay.
import { beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, type Address } from "viem";
import { testErc20Abi, testErc20Bytecode } from "../contracts/artifacts/test-erc20";
import { chainClient, ETHER, fund, ownerOf, rpc, waitForTransaction } from "../helpers/chain";
import { deployConfirmedDrop } from "../helpers/drops";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { seaportJsList } from "../helpers/seaport";
import { seaportAddress } from "../helpers/seaport-basic-order";
import { freshWallet } from "../helpers/wallets";
import { orderHashOf } from "../../src/chain/seaport";
import { fillGasLimitWithoutEstimate } from "../../src/chain/seaport-fulfil";
import { canonicalOrder } from "../../src/services/orders/order-shape";
import { UNLIMITED_ALLOWANCE } from "../../src/services/project-wallet/erc20-payments";

const FEE_BPS = 500n;
let creator: TestProject;
let buyer: TestProject;
let drop: { contractAddress: string };
let seller: Awaited<ReturnType<typeof freshWallet>>;
let token: Address;
let mintTokens: (to: string, amount: bigint) => Promise<void>;

const tokenBalance = (owner: string) => chainClient().readContract({ address: token, abi: testErc20Abi, functionName: "balanceOf", args: [owner as Address] });
const allowance = (owner: string) =>
  chainClient().readContract({ address: token, abi: testErc20Abi, functionName: "allowance", args: [owner as Address, seaportAddress()] });
const nonceOf = async (address: string) => Number(BigInt(await rpc<string>("eth_getTransactionCount", [address, "pending"])));

/** Lists `tokenId` for `price` of the test token (the creator's fee included) and has the service accept it. */
async function listForToken(tokenId: string, price: bigint) {
  const fee = (price * FEE_BPS) / 10_000n;
  // A fee that rounds down to 0 is left out: Seaport refuses a payment of 0 (decision 81).
  const fees = fee > 0n ? [{ recipient: creator.walletAddress, amount: fee }] : [];
  const listing = await seaportJsList({ privateKey: seller.privateKey, token: drop.contractAddress, tokenId, price, currency: token, fees });
  const accepted = await call("/v1/orders", { apiKey: buyer.apiKey, body: { signature: listing.signature, parameters: listing.parameters, chainId: 1868 } });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
  expect(accepted.body.currencyAddress?.toLowerCase()).toBe(token);
  return { orderHash: accepted.body.orderHash as string, fee, parameters: listing.parameters };
}

const buy = (orderHashes: string[]) => call("/v1/project-wallet/orders/buy", { secretKey: buyer.secretKey, body: { chainId: 1868, orderHashes } });

/** A funded project whose wallet holds 1,000 of the token and has never approved Seaport. */
async function newTokenHolder(name: string) {
  const project = await createTestProject(name);
  await fund(project.walletAddress);
  await mintTokens(project.walletAddress, 1_000n);
  const buyAs = (orderHash: string) => call("/v1/project-wallet/orders/buy", { secretKey: project.secretKey, body: { chainId: 1868, orderHashes: [orderHash] } });
  return { project, buyAs };
}

beforeAll(async () => {
  [creator, buyer] = await Promise.all([createTestProject("ERC20 creator"), createTestProject("ERC20 buyer")]);
  await Promise.all([fund(creator.walletAddress), fund(buyer.walletAddress)]);
  seller = await freshWallet();
  drop = await deployConfirmedDrop(creator, { name: "Paid in tokens", metadataStorageType: "self-hosted", baseUri: "https://example.com/erc20/", creatorFeeBps: Number(FEE_BPS) });
  const claimed = await call("/v1/project-wallet/drops/claim", {
    secretKey: creator.secretKey,
    body: { contractAddress: drop.contractAddress, recipientAddress: seller.address, quantity: 9 },
  });
  await waitForTransaction(claimed.body.transactions[0].id, creator.apiKey);
  const issuer = await freshWallet();
  token = await issuer.deploy(testErc20Abi, testErc20Bytecode);
  mintTokens = async (to, amount) => {
    await issuer.send({ to: token, data: encodeFunctionData({ abi: testErc20Abi, functionName: "mint", args: [to as Address, amount] }) });
  };
  await mintTokens(buyer.walletAddress, 1_000_000n);
});

describe("buying ERC20-priced listings with the project wallet", () => {
  it("approves Seaport once, then fills: tokens reach the seller and the creator, the NFT the buyer", async () => {
    const price = 100_000n;
    const { orderHash, fee, parameters } = await listForToken("1", price);
    expect(await allowance(buyer.walletAddress)).toBe(0n);

    const { status, body } = await buy([orderHash]);
    expect(status, JSON.stringify(body)).toBe(200);
    const [approval, fill] = body[0].result;
    expect(body[0].result).toHaveLength(2);
    expect(approval).toMatchObject({ type: "transaction", result: { status: "pending", value: "0" } });
    expect(approval.result.to.toLowerCase()).toBe(token);
    expect(fill).toMatchObject({ type: "transaction", result: { status: "pending", value: "0" } });
    expect(fill.result.to.toLowerCase()).toBe(seaportAddress().toLowerCase());
    // One request, one job: the approval and the fill it enables share the jobId.
    expect(approval.result.jobId).toMatch(/^[0-9a-f-]{36}$/);
    expect(fill.result.jobId).toBe(approval.result.jobId);

    const [approved, filled] = await Promise.all([waitForTransaction(approval.result.id, buyer.apiKey), waitForTransaction(fill.result.id, buyer.apiKey)]);
    expect(approved.status).toBe("confirmed");
    expect(filled.status, JSON.stringify(filled)).toBe("confirmed");
    const [approvalTx, fillTx] = await Promise.all([approved, filled].map((t) => chainClient().getTransaction({ hash: t.transactionHash })));
    expect(fillTx!.nonce).toBe(approvalTx!.nonce + 1);
    // The fill went out unsimulated on a fixed limit, which must leave a wide margin.
    expect(BigInt(filled.gasUsed) * 10n).toBeLessThan(fillGasLimitWithoutEstimate(canonicalOrder(parameters)) * 7n);
    expect(fillTx!.gas).toBe(fillGasLimitWithoutEstimate(canonicalOrder(parameters)));
    // OpenZeppelin's ERC20 never spends down an allowance of 2^256 − 1.
    expect(await allowance(buyer.walletAddress)).toBe(UNLIMITED_ALLOWANCE);
    expect((await ownerOf(drop.contractAddress, 1n)).toLowerCase()).toBe(buyer.walletAddress.toLowerCase());
    expect(await tokenBalance(seller.address)).toBe(price - fee);
    expect(await tokenBalance(creator.walletAddress)).toBe(fee);
    expect(await tokenBalance(buyer.walletAddress)).toBe(1_000_000n - price);

    const order = await call(`/v1/orders/${orderHash}`, { apiKey: buyer.apiKey });
    expect(order.body.status).toBe("filled");
    // Decision 5: ERC20 sales count as sales but not as (native) volume.
    const trending = await call("/v1/collections/trending?period=1h", { apiKey: buyer.apiKey });
    const entry = trending.body.data.find((e: { collection: { contractAddress: string } }) => e.collection.contractAddress === drop.contractAddress);
    expect(entry).toMatchObject({ sales: 1, volume: "0" });
  });

  it("sends no second approval once Seaport may spend the token, and simulates the fill again", async () => {
    const { orderHash, parameters } = await listForToken("2", 50_000n);
    const { body } = await buy([orderHash]);
    expect(body[0].result).toHaveLength(1);
    const settled = await waitForTransaction(body[0].result[0].result.id, buyer.apiKey);
    expect(settled.status).toBe("confirmed");
    const sent = await chainClient().getTransaction({ hash: settled.transactionHash });
    expect(sent.gas).not.toBe(fillGasLimitWithoutEstimate(canonicalOrder(parameters)));
    expect((await ownerOf(drop.contractAddress, 2n)).toLowerCase()).toBe(buyer.walletAddress.toLowerCase());
  });

  it("does not approve again while an earlier request's approval is still pending", async () => {
    const { project: second, buyAs } = await newTokenHolder("ERC20 second buyer");
    const [six, seven] = [await listForToken("6", 100n), await listForToken("7", 100n)];

    // No blocks while both requests run: the second must trust the first's unmined approval.
    await rpc("evm_setIntervalMining", [0]);
    try {
      const first = await buyAs(six.orderHash);
      expect(first.body[0].result.map((item: { type: string }) => item.type)).toEqual(["transaction", "transaction"]);
      const approval = first.body[0].result[0].result as { id: string };
      expect((await call(`/v1/transactions/${approval.id}`, { apiKey: second.apiKey })).body.status).toBe("pending");
      const next = await buyAs(seven.orderHash);
      expect(next.body[0].result).toHaveLength(1);
      expect(next.body[0].result[0].type).toBe("transaction");
      expect(next.body[0].result[0].result.jobId).not.toBe(first.body[0].result[0].result.jobId);
      await rpc("evm_setIntervalMining", [1]);
      for (const id of [approval.id, first.body[0].result[1].result.id, next.body[0].result[0].result.id]) {
        expect((await waitForTransaction(id, second.apiKey)).status).toBe("confirmed");
      }
    } finally {
      await rpc("evm_setIntervalMining", [1]);
    }
    expect((await ownerOf(drop.contractAddress, 7n)).toLowerCase()).toBe(second.walletAddress.toLowerCase());
  });

  it("sends one approval when two requests needing it arrive together, and both fills go through", async () => {
    const { project: third, buyAs } = await newTokenHolder("ERC20 simultaneous buyer");
    const [eight, nine] = [await listForToken("8", 100n), await listForToken("9", 100n)];

    const answers = await Promise.all([buyAs(eight.orderHash), buyAs(nine.orderHash)]);
    const items = answers.flatMap((answer) => answer.body[0].result as { type: string; result: { id: string; to: string } }[]);
    expect(items.every((item) => item.type === "transaction"), JSON.stringify(items)).toBe(true);
    expect(items.filter((item) => item.result.to.toLowerCase() === token)).toHaveLength(1);
    expect(items).toHaveLength(3);
    expect(await nonceOf(third.walletAddress)).toBe(3);
    for (const item of items) expect((await waitForTransaction(item.result.id, third.apiKey)).status).toBe("confirmed");
    expect((await ownerOf(drop.contractAddress, 8n)).toLowerCase()).toBe(third.walletAddress.toLowerCase());
    expect((await ownerOf(drop.contractAddress, 9n)).toLowerCase()).toBe(third.walletAddress.toLowerCase());
  });

  it("answers insufficient_funds for the orders a request cannot pay for, and sends nothing for them", async () => {
    const left = await tokenBalance(buyer.walletAddress);
    const affordable = await listForToken("3", left - 1n);
    const tooMuch = await listForToken("4", 2n);
    const nonceBefore = await nonceOf(buyer.walletAddress);

    const { body } = await buy([affordable.orderHash, tooMuch.orderHash]);
    expect(body[0].result).toHaveLength(1);
    expect(body[0].result[0].type).toBe("transaction");
    expect(body[1]).toEqual({ id: tooMuch.orderHash, result: [{ type: "error", result: { code: "insufficient_funds", message: expect.stringContaining("earlier orders in this request") } }] });
    expect(await nonceOf(buyer.walletAddress)).toBe(nonceBefore + 1);
    expect((await waitForTransaction(body[0].result[0].result.id, buyer.apiKey)).status).toBe("confirmed");
  });

  it("refuses a listing whose currency is not an ERC20 (or is an NFT), so it never shows as a best listing nobody can buy", async () => {
    const notAToken = "0x000000000000000000000000000000000000dEaD";
    const listing = await seaportJsList({ privateKey: seller.privateKey, token: drop.contractAddress, tokenId: "5", price: 1_000n, currency: notAToken, fees: [{ recipient: creator.walletAddress, amount: 50n }] });
    const refused = expectEnvelope(await call("/v1/orders", { apiKey: buyer.apiKey, body: { signature: listing.signature, parameters: listing.parameters, chainId: 1868 } }), 400, "validation_error");
    expect(refused.details).toEqual([{ path: "body.parameters.consideration.0.token", message: "is not an ERC20 token on this chain (no balanceOf)" }]);
    expect((await call(`/v1/orders/${orderHashOf(canonicalOrder(listing.parameters))}`, { apiKey: buyer.apiKey })).status).toBe(404);

    const inNft = await seaportJsList({ privateKey: seller.privateKey, token: drop.contractAddress, tokenId: "5", price: 1_000n, currency: drop.contractAddress, fees: [{ recipient: creator.walletAddress, amount: 50n }] });
    const nft = expectEnvelope(await call("/v1/orders", { apiKey: buyer.apiKey, body: { signature: inNft.signature, parameters: inNft.parameters, chainId: 1868 } }), 400, "validation_error");
    expect(nft.details).toEqual([{ path: "body.parameters.consideration.0.token", message: "is an ERC721 NFT contract, not an ERC20 token" }]);
  });

  it("answers order_not_fillable, sending nothing, when the listing's token stopped being an ERC20 after it was listed", async () => {
    const issuer = await freshWallet();
    const doomed = await issuer.deploy(testErc20Abi, testErc20Bytecode);
    const listing = await seaportJsList({ privateKey: seller.privateKey, token: drop.contractAddress, tokenId: "5", price: 1_000n, currency: doomed, fees: [{ recipient: creator.walletAddress, amount: 50n }] });
    const accepted = await call("/v1/orders", { apiKey: buyer.apiKey, body: { signature: listing.signature, parameters: listing.parameters, chainId: 1868 } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    expect(accepted.body.priceSymbol).toBe("TUSD");
    await rpc("anvil_setCode", [doomed, "0x"]);

    const nonceBefore = await nonceOf(buyer.walletAddress);
    const { body } = await buy([accepted.body.orderHash]);
    expect(body[0].result).toEqual([{ type: "error", result: { code: "order_not_fillable", message: expect.stringContaining("does not answer balanceOf") } }]);
    expect(await nonceOf(buyer.walletAddress)).toBe(nonceBefore);
  });

  it("shows a native-currency listing as the token's best listing, however few token units the other asks", async () => {
    const inToken = await listForToken("5", 100n);
    const bestListing = async () => (await call(`/v1/assets/1868/${drop.contractAddress}/5`, { apiKey: buyer.apiKey })).body.bestListing;
    expect((await bestListing()).orderHash).toBe(inToken.orderHash);

    const inEther = await seaportJsList({ privateKey: seller.privateKey, token: drop.contractAddress, tokenId: "5", price: ETHER, fees: [{ recipient: creator.walletAddress, amount: (ETHER * FEE_BPS) / 10_000n }] });
    const accepted = await call("/v1/orders", { apiKey: buyer.apiKey, body: { signature: inEther.signature, parameters: inEther.parameters, chainId: 1868 } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    expect((await bestListing()).orderHash).toBe(accepted.body.orderHash);
  });
});
