// An order its offerer validated on chain (`Seaport.validate`) needs no signature: Seaport skips
// the check for it, and so does POST /v1/orders (decision 103).
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, type Address } from "viem";
import { seaportAbi } from "../../src/chain/artifacts/seaport";
import { ETHER, fund, ownerOf, waitForTransaction } from "../helpers/chain";
import { claimConfirmed, deployConfirmedDrop, setApprovalForAll } from "../helpers/drops";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { seedListing } from "../fixtures/seed";
import { listingComponents, toBig } from "../helpers/seaport";
import { seaportAddress } from "../helpers/seaport-basic-order";
import { freshWallet } from "../helpers/wallets";

let buyer: TestProject;
let seller: Awaited<ReturnType<typeof freshWallet>>;
let drop: { contractAddress: string };
let tokenId: string | undefined;
let secondTokenId: string | undefined;
let thirdTokenId: string | undefined;

beforeAll(async () => {
  const creator = await createTestProject("Validated creator");
  buyer = await createTestProject("Validated buyer");
  await fund(buyer.walletAddress);
  seller = await freshWallet();
  drop = await deployConfirmedDrop(creator, { name: "Validated", metadataStorageType: "self-hosted", baseUri: "https://example.com/v/" });
  [tokenId, secondTokenId, thirdTokenId] = await claimConfirmed(creator, { contractAddress: drop.contractAddress, recipientAddress: seller.address, quantity: 3 });
  await setApprovalForAll(seller, drop.contractAddress, seaportAddress());
});

/** The offerer validates the listing on Seaport itself, which needs no signature. */
async function validateOnChain(components: ReturnType<typeof listingComponents>) {
  const { counter: _counter, ...parameters } = toBig(components);
  const order = { parameters: { ...parameters, totalOriginalConsiderationItems: BigInt(components.consideration.length) }, signature: "0x" };
  const receipt = await seller.send({ to: seaportAddress(), data: encodeFunctionData({ abi: seaportAbi, functionName: "validate", args: [[order]] as never }) });
  expect(receipt.status).toBe("success");
}

const buy = (orderHash: string) => call("/v1/project-wallet/orders/buy", { secretKey: buyer.secretKey, body: { chainId: 1868, orderHashes: [orderHash] } });

describe("an order validated on chain", () => {
  it("is listed without a signature once validated, and a buy fills it", async () => {
    const components = listingComponents(seller.address, drop.contractAddress.toLowerCase(), tokenId!, ETHER / 50n);
    const submit = (signature: string) => call("/v1/orders", { apiKey: buyer.apiKey, body: { signature, parameters: components, chainId: 1868 } });
    const refused = expectEnvelope(await submit("0x"), 422, "invalid_signature");
    expect(refused.message).toContain("not validated on chain");

    await validateOnChain(components);

    const accepted = await submit("0x");
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    const stored = await env.DB.prepare("select signature from orders where order_hash = ?").bind(accepted.body.orderHash).first<{ signature: string }>();
    expect(stored?.signature).toBe("0x");

    const bought = await buy(accepted.body.orderHash);
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    const [item] = bought.body[0].result;
    expect(item.type, JSON.stringify(item)).toBe("transaction");
    expect((await waitForTransaction(item.result.id, buyer.apiKey)).status).toBe("confirmed");
    expect((await ownerOf(drop.contractAddress as Address, BigInt(tokenId!))).toLowerCase()).toBe(buyer.walletAddress.toLowerCase());
  });

  it("stores no signature when the one sent does not check out, since Seaport reads none", async () => {
    const components = listingComponents(seller.address, drop.contractAddress.toLowerCase(), secondTokenId!, ETHER / 40n);
    await validateOnChain(components);
    const accepted = await call("/v1/orders", { apiKey: buyer.apiKey, body: { signature: `0x${"ab".repeat(65)}`, parameters: components, chainId: 1868 } });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    const stored = await env.DB.prepare("select signature from orders where order_hash = ?").bind(accepted.body.orderHash).first<{ signature: string }>();
    expect(stored?.signature).toBe("0x");
  });

  it("is refused as cancelled, not as unsigned, once its offerer cancelled it (a cancel clears the validation)", async () => {
    const components = listingComponents(seller.address, drop.contractAddress.toLowerCase(), thirdTokenId!, ETHER / 40n);
    await validateOnChain(components);
    const cancelled = await seller.send({ to: seaportAddress(), data: encodeFunctionData({ abi: seaportAbi, functionName: "cancel", args: [[toBig(components)]] as never }) });
    expect(cancelled.status).toBe("success");
    const refused = expectEnvelope(await call("/v1/orders", { apiKey: buyer.apiKey, body: { signature: "0x", parameters: components, chainId: 1868 } }), 422, "order_not_fillable");
    expect(refused.message).toBe("the order is cancelled on Seaport");
  });

  it("is not bought, and stops being listed, once Seaport no longer has it validated (a reorg dropped the validation)", async () => {
    // A listing stored with no signature, as a validated one is, whose order Seaport does not know.
    const listing = await seedListing({ chainId: 1868, contractAddress: drop.contractAddress.toLowerCase(), tokenId: secondTokenId! } as never, ETHER / 30n, {
      offerer: seller.address,
      signature: "0x",
    });
    const { status, body } = await buy(listing.orderHash);
    expect(status).toBe(200);
    expect(body[0].result).toEqual([
      { type: "error", result: { code: "order_not_fillable", message: "the order was listed as validated on chain with no signature, and Seaport no longer has it validated" } },
    ]);
    const row = await env.DB.prepare("select status from orders where order_hash = ?").bind(listing.orderHash).first<{ status: string }>();
    expect(row?.status).toBe("inactive");
  });
});
