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
import { listingComponents, toBig } from "../helpers/seaport";
import { seaportAddress } from "../helpers/seaport-basic-order";
import { freshWallet } from "../helpers/wallets";

let buyer: TestProject;
let seller: Awaited<ReturnType<typeof freshWallet>>;
let drop: { contractAddress: string };
let tokenId: string | undefined;

beforeAll(async () => {
  const creator = await createTestProject("Validated creator");
  buyer = await createTestProject("Validated buyer");
  await fund(buyer.walletAddress);
  seller = await freshWallet();
  drop = await deployConfirmedDrop(creator, { name: "Validated", metadataStorageType: "self-hosted", baseUri: "https://example.com/v/" });
  [tokenId] = await claimConfirmed(creator, { contractAddress: drop.contractAddress, recipientAddress: seller.address, quantity: 1 });
  await setApprovalForAll(seller, drop.contractAddress, seaportAddress());
});

describe("an order validated on chain", () => {
  it("is listed without a signature once validated, and a buy fills it", async () => {
    const components = listingComponents(seller.address, drop.contractAddress.toLowerCase(), tokenId!, ETHER / 50n);
    const submit = (signature: string) => call("/v1/orders", { apiKey: buyer.apiKey, body: { signature, parameters: components, chainId: 1868 } });
    const refused = expectEnvelope(await submit("0x"), 422, "invalid_signature");
    expect(refused.message).toContain("not validated on chain");

    // The offerer validates it itself, which Seaport allows with no signature.
    const { counter: _counter, ...parameters } = toBig(components);
    const validated = await seller.send({
      to: seaportAddress(),
      data: encodeFunctionData({ abi: seaportAbi, functionName: "validate", args: [[{ parameters: { ...parameters, totalOriginalConsiderationItems: BigInt(components.consideration.length) }, signature: "0x" }]] as never }),
    });
    expect(validated.status).toBe("success");

    const accepted = await submit("0x");
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    const stored = await env.DB.prepare("select signature from orders where order_hash = ?").bind(accepted.body.orderHash).first<{ signature: string }>();
    expect(stored?.signature).toBe("0x");

    const bought = await call("/v1/project-wallet/orders/buy", { secretKey: buyer.secretKey, body: { chainId: 1868, orderHashes: [accepted.body.orderHash] } });
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    const [item] = bought.body[0].result;
    expect(item.type, JSON.stringify(item)).toBe("transaction");
    expect((await waitForTransaction(item.result.id, buyer.apiKey)).status).toBe("confirmed");
    expect((await ownerOf(drop.contractAddress as Address, BigInt(tokenId!))).toLowerCase()).toBe(buyer.walletAddress.toLowerCase());
  });
});
