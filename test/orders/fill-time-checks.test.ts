// A listing is stored as active only if Seaport would fill it: signatures, payment items, time
// windows, conduits and fill state are checked the way Seaport checks them at fill time, so no
// order that can never be bought becomes a token's best listing or a collection's floor; and the
// bytes the service stores are the bytes Seaport accepts.
import { encodeFunctionData, getAddress, parseAbi, type Abi, type Hex } from "viem";
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { seaportAbi } from "../../src/chain/artifacts/seaport";
import { testErc1155Abi, testErc1155Bytecode } from "../contracts/artifacts/test-erc1155";
import { chainClient, contractAnswering, ETHER, fund, ownerOf, rpc, waitForTransaction } from "../helpers/chain";
import { claimConfirmed, deployConfirmedDrop, setApprovalForAll } from "../helpers/drops";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { listingComponents, viemSignOrder } from "../helpers/seaport";
import { seaportAddress } from "../helpers/seaport-basic-order";
import { freshWallet } from "../helpers/wallets";

type Wallet = Awaited<ReturnType<typeof freshWallet>>;
type Order = ReturnType<typeof listingComponents>;

let project: TestProject;
let drop: { contractAddress: string };

const submit = (signature: string, parameters: unknown) => call("/v1/orders", { apiKey: project.apiKey, body: { signature, parameters, chainId: 1868 } });
const sign = (wallet: Wallet, order: unknown) => viemSignOrder(wallet, order as never, { chainId: 1868, verifyingContract: seaportAddress() });
const buy = (orderHashes: string[]) => call("/v1/project-wallet/orders/buy", { secretKey: project.secretKey, body: { chainId: 1868, orderHashes } });

/** A fresh wallet owning one token of the drop, Seaport approved. */
async function sellerWithToken(): Promise<{ seller: Wallet; tokenId: string }> {
  const seller = await freshWallet();
  const [tokenId] = await claimConfirmed(project, { contractAddress: drop.contractAddress, recipientAddress: seller.address, quantity: 1 });
  await setApprovalForAll(seller, drop.contractAddress, seaportAddress());
  return { seller, tokenId: tokenId! };
}

/** Sends the buy and waits for every transaction item; returns the items. */
async function bought(orderHashes: string[]) {
  const answer = await buy(orderHashes);
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const items = (answer.body as { result: { type: string; result: { id: string; code?: string } }[] }[]).map((entry) => entry.result.at(-1)!);
  for (const item of items.filter((entry) => entry.type === "transaction")) {
    expect((await waitForTransaction(item.result.id, project.apiKey)).status).toBe("confirmed");
  }
  return items;
}

const ownerOfToken = async (tokenId: string) => (await ownerOf(drop.contractAddress, BigInt(tokenId))).toLowerCase();

beforeAll(async () => {
  project = await createTestProject("Fill-time checks");
  drop = await deployConfirmedDrop(project, { name: "Fill-time drop", metadataStorageType: "self-hosted", baseUri: "https://example.com/f/" });
});

describe("signatures, as Seaport reads them", () => {
  it("refuses 64-byte signatures whose r or s no curve point has, with invalid_signature", async () => {
    const { seller, tokenId } = await sellerWithToken();
    const order = listingComponents(seller.address, drop.contractAddress, tokenId, ETHER / 100n);
    for (const signature of [`0x${"00".repeat(64)}`, `0x${"ff".repeat(64)}`]) {
      expectEnvelope(await submit(signature, order), 422, "invalid_signature");
    }
  });

  it("stores a v of 0 or 1 as the 27 or 28 Seaport's ecrecover needs, and the listing fills", async () => {
    const { seller, tokenId } = await sellerWithToken();
    const order = listingComponents(seller.address, drop.contractAddress, tokenId, ETHER / 100n);
    const signature = await sign(seller, order);
    const v = Number.parseInt(signature.slice(-2), 16);
    const listed = await submit(`${signature.slice(0, -2)}0${v - 27}`, order);
    expect(listed.status, JSON.stringify(listed.body)).toBe(201);
    expect(listed.body.signature).toBe(signature.toLowerCase());

    const [item] = await bought([listed.body.orderHash]);
    expect(item!.type, JSON.stringify(item)).toBe("transaction");
    expect(await ownerOfToken(tokenId)).toBe(project.walletAddress.toLowerCase());
  });

  it("hands a contract wallet's 64-byte signature to Seaport unchanged, so its listing fills beside another", async () => {
    // A wallet whose isValidSignature answers the magic value for anything, 64 zero bytes included.
    const wallet = getAddress(await contractAnswering(`1626ba7e${"00".repeat(28)}`));
    await fund(wallet);
    const { seller, tokenId } = await sellerWithToken();
    await seller.send({
      to: drop.contractAddress,
      data: encodeFunctionData({ abi: parseAbi(["function transferFrom(address, address, uint256)"]), functionName: "transferFrom", args: [seller.address, wallet, BigInt(tokenId)] }),
    });
    await rpc("anvil_impersonateAccount", [wallet]);
    const approval = await rpc<Hex>("eth_sendTransaction", [
      { from: wallet, to: drop.contractAddress, data: encodeFunctionData({ abi: parseAbi(["function setApprovalForAll(address, bool)"]), functionName: "setApprovalForAll", args: [seaportAddress(), true] }) },
    ]);
    await rpc("anvil_stopImpersonatingAccount", [wallet]);
    await chainClient().waitForTransactionReceipt({ hash: approval });
    const walletListing = await submit(`0x${"00".repeat(64)}`, listingComponents(wallet.toLowerCase(), drop.contractAddress, tokenId, ETHER / 100n));
    expect(walletListing.status, JSON.stringify(walletListing.body)).toBe(201);
    // A wallet's 65 bytes ending in v 0 are not rewritten: only its own isValidSignature judged them.
    const walletBytes = `0x${"11".repeat(64)}00`;
    const rawListing = await submit(walletBytes, listingComponents(wallet.toLowerCase(), drop.contractAddress, tokenId, ETHER));
    expect([rawListing.status, rawListing.body.signature]).toEqual([201, walletBytes]);

    const other = await sellerWithToken();
    const otherOrder = listingComponents(other.seller.address, drop.contractAddress, other.tokenId, ETHER / 100n);
    const otherListing = await submit(await sign(other.seller, otherOrder), otherOrder);
    expect(otherListing.status).toBe(201);

    const items = await bought([walletListing.body.orderHash, otherListing.body.orderHash]);
    expect(items.map((item) => item.type), JSON.stringify(items)).toEqual(["transaction", "transaction"]);
  });
});

describe("rows stored without decision 86's checks", () => {
  it("are bought with an EOA's v 0 or 1 signature in the form Seaport takes", async () => {
    const { seller, tokenId } = await sellerWithToken();
    const order = listingComponents(seller.address, drop.contractAddress, tokenId, ETHER / 100n);
    const signature = await sign(seller, order);
    const listed = await submit(signature, order);
    expect(listed.status, JSON.stringify(listed.body)).toBe(201);
    // A row holding the signer's 0/1 form, which Seaport's ecrecover refuses.
    const v = Number.parseInt(signature.slice(-2), 16);
    const legacy = `${signature.slice(0, -2).toLowerCase()}0${v - 27}`;
    await env.DB.prepare("update orders set signature = ? where order_hash = ?").bind(legacy, listed.body.orderHash).run();
    const [item] = await bought([listed.body.orderHash]);
    expect(item!.type, JSON.stringify(item)).toBe("transaction");
    expect(await ownerOfToken(tokenId)).toBe(project.walletAddress.toLowerCase());
  });
});

describe("order shapes Seaport refuses at fill time", () => {
  it("refuses native payment items with a token or identifier Seaport rejects, an empty time window and a unit price of 0, naming the field", async () => {
    const { seller, tokenId } = await sellerWithToken();
    const order = listingComponents(seller.address, drop.contractAddress, tokenId, ETHER / 100n);
    const payment = order.consideration[0]!;
    const now = Math.floor(Date.now() / 1000);
    const cases: [Record<string, unknown>, string][] = [
      [{ ...order, consideration: [{ ...payment, token: "0x000000000000000000000000000000000000dEaD" }] }, "body.parameters.consideration.0.token"],
      [{ ...order, consideration: [{ ...payment, identifierOrCriteria: "7" }] }, "body.parameters.consideration.0.identifierOrCriteria"],
      [{ ...order, startTime: String(now + 600), endTime: String(now + 600) }, "body.parameters.endTime"],
      [
        { ...order, offer: [{ itemType: 3, token: drop.contractAddress, identifierOrCriteria: tokenId, startAmount: "1000", endAmount: "1000" }], consideration: [{ ...payment, startAmount: "999", endAmount: "999" }] },
        "body.parameters.consideration",
      ],
      // Seaport's MissingItemAmount: a payment of 0, even beside one that carries the price.
      [{ ...order, consideration: [payment, { ...payment, recipient: "0x000000000000000000000000000000000000dEaD", startAmount: "0", endAmount: "0" }] }, "body.parameters.consideration.1.startAmount"],
      // An ERC20 refuses a transfer to the zero address (checked before the token itself).
      [
        {
          ...order,
          consideration: [
            { ...payment, itemType: 1, token: "0x000000000000000000000000000000000000dEaD" },
            { ...payment, itemType: 1, token: "0x000000000000000000000000000000000000dEaD", recipient: "0x0000000000000000000000000000000000000000", startAmount: "1", endAmount: "1" },
          ],
        },
        "body.parameters.consideration.1.recipient",
      ],
    ];
    for (const [parameters, path] of cases) {
      const error = expectEnvelope(await submit(await sign(seller, parameters), parameters), 400, "validation_error");
      expect(error.details?.map((detail) => detail.path), JSON.stringify(parameters)).toEqual([path]);
    }
  });

  it("refuses a signature over 4 KiB, which every fill would carry as calldata", async () => {
    const { seller, tokenId } = await sellerWithToken();
    const order = listingComponents(seller.address, drop.contractAddress, tokenId, ETHER / 100n);
    const error = expectEnvelope(await submit(`0x${"1b".repeat(4_097)}`, order), 400, "validation_error");
    expect(error.details?.map((detail) => detail.path)).toContain("body.signature");
    expect(JSON.stringify(error.details)).toContain("at most 4096 bytes");
  });

  it("refuses a conduit whose channel to Seaport is not open", async () => {
    const { seller, tokenId } = await sellerWithToken();
    const [, , controller] = await chainClient().readContract({ address: seaportAddress(), abi: seaportAbi, functionName: "information" });
    const conduitKey = `${seller.address}${"00".repeat(11)}02` as Hex;
    const created = await seller.send({
      to: controller,
      data: encodeFunctionData({ abi: parseAbi(["function createConduit(bytes32 conduitKey, address initialOwner) returns (address)"]), functionName: "createConduit", args: [conduitKey, seller.account.address] }),
    });
    expect(created.status).toBe("success");
    const order = listingComponents(seller.address, drop.contractAddress, tokenId, ETHER / 100n, { conduitKey });
    const error = expectEnvelope(await submit(await sign(seller, order), order), 400, "validation_error");
    expect(error.details).toEqual([{ path: "body.parameters.conduitKey", message: expect.stringContaining("no open channel") }]);
  });
});

describe("an order Seaport has partly filled", () => {
  it("is refused when submitted, and a listed one partly filled since is not bought", async () => {
    const holder = await freshWallet();
    const multi = await holder.deploy(testErc1155Abi as Abi, testErc1155Bytecode);
    await holder.send({ to: multi, data: encodeFunctionData({ abi: testErc1155Abi, functionName: "mint", args: [holder.account.address, 1n, 20n] }) });
    await setApprovalForAll(holder, multi, seaportAddress());
    const registered = await call("/v1/admin/collections", { admin: true, body: { contractAddress: multi, slug: `partial-${multi.slice(2, 12)}` } });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    await fund(project.walletAddress);
    const tenUnits = (): Order & { orderType: number } => ({
      ...listingComponents(holder.address, multi, "1", 10_000n),
      orderType: 1,
      offer: [{ itemType: 3, token: multi, identifierOrCriteria: "1", startAmount: "10", endAmount: "10" }],
    });
    const taker = await freshWallet();
    /** One unit of ten bought straight on Seaport (numerator 1 of 10). */
    const fillOneUnit = async (order: Order, signature: Hex) => {
      const { counter: _notAParameter, ...parameters } = order;
      const receipt = await taker.send({
        to: seaportAddress(),
        value: 1_000n,
        data: encodeFunctionData({
          abi: seaportAbi,
          functionName: "fulfillAdvancedOrder",
          args: [
            { parameters: { ...parameters, totalOriginalConsiderationItems: 1n } as never, numerator: 1n, denominator: 10n, signature, extraData: "0x" },
            [],
            `0x${"00".repeat(32)}`,
            taker.account.address,
          ],
        }),
      });
      expect(receipt.status).toBe("success");
    };

    const touched = tenUnits();
    const touchedSignature = await sign(holder, touched);
    await fillOneUnit(touched, touchedSignature);
    expectEnvelope(await submit(touchedSignature, touched), 422, "order_not_fillable");

    const listedFirst = tenUnits();
    const listedSignature = await sign(holder, listedFirst);
    const listed = await submit(listedSignature, listedFirst);
    expect(listed.status, JSON.stringify(listed.body)).toBe(201);
    await fillOneUnit(listedFirst, listedSignature);
    const answer = await buy([listed.body.orderHash]);
    expect(answer.body[0].result, JSON.stringify(answer.body)).toEqual([{ type: "error", result: { code: "order_not_fillable", message: expect.stringContaining("partly filled") } }]);
    // Seaport's fill ends the listing, as the indexer's OrderFulfilled would: no longer offered for sale.
    expect((await call(`/v1/orders/${listed.body.orderHash}`, { apiKey: project.apiKey })).body.status).toBe("filled");
  });
});
