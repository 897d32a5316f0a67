// Listings signed together with one Seaport bulk-order signature (OpenSea's multi-item listing):
// each order carries the ECDSA signature of the tree, its index and the proof (decision 102).
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { offererSignature, orderHashOf, SEAPORT_EIP712_TYPES, seaportDomain } from "../../src/chain/seaport";
import { ETHER, fund, ownerOf, waitForTransaction } from "../helpers/chain";
import { claimConfirmed, deployConfirmedDrop } from "../helpers/drops";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { listingComponents, seaportJsListBulk, toBig, type SeaportJsOrder } from "../helpers/seaport";
import { seaportAddress } from "../helpers/seaport-basic-order";
import { freshWallet } from "../helpers/wallets";

let creator: TestProject;
let buyer: TestProject;
let drop: { contractAddress: string };
let listings: SeaportJsOrder[];

const submit = (listing: { signature: string; parameters: unknown }) =>
  call("/v1/orders", { apiKey: buyer.apiKey, body: { signature: listing.signature, parameters: listing.parameters, chainId: 1868 } });

beforeAll(async () => {
  [creator, buyer] = await Promise.all([createTestProject("Bulk creator"), createTestProject("Bulk buyer")]);
  await fund(buyer.walletAddress);
  const seller = await freshWallet();
  drop = await deployConfirmedDrop(creator, { name: "Bulk listed", metadataStorageType: "self-hosted", baseUri: "https://example.com/bulk/" });
  const tokenIds = await claimConfirmed(creator, { contractAddress: drop.contractAddress, recipientAddress: seller.address, quantity: 3 });
  listings = await seaportJsListBulk({ privateKey: seller.privateKey, token: drop.contractAddress, items: tokenIds.map((tokenId, i) => ({ tokenId, price: ETHER / 100n + BigInt(i) })) });
});

describe("bulk-order signatures", () => {
  it("accepts the listings of a bulk signature, and Seaport fills one bought with the stored bytes", async () => {
    // Three orders make a tree of height 2: 65 or 64 bytes, a 3-byte index and two proof hashes.
    expect(listings).toHaveLength(3);
    for (const listing of listings) expect([65 + 3 + 64, 64 + 3 + 64]).toContain((listing.signature.length - 2) / 2);
    for (const listing of listings.slice(0, 2)) {
      const accepted = await submit(listing);
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
      expect(accepted.body.orderHash).toBe(listing.orderHash.toLowerCase());
    }

    const bought = await call("/v1/project-wallet/orders/buy", { secretKey: buyer.secretKey, body: { chainId: 1868, orderHashes: [listings[1]!.orderHash] } });
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    const [item] = bought.body[0].result;
    expect(item.type, JSON.stringify(item)).toBe("transaction");
    expect((await waitForTransaction(item.result.id, buyer.apiKey)).status).toBe("confirmed");
    const tokenId = (listings[1]!.parameters.offer[0] as { identifierOrCriteria: string }).identifierOrCriteria;
    expect((await ownerOf(drop.contractAddress as Address, BigInt(tokenId))).toLowerCase()).toBe(buyer.walletAddress.toLowerCase());
  });

  it("refuses a bulk signature whose index or proof does not lead to what was signed", async () => {
    const listing = listings[2]!;
    const hex = listing.signature.slice(2);
    const ecdsaHex = (65 - ((hex.length / 2) % 2)) * 2;
    const flip = (at: number) => `0x${hex.slice(0, at)}${hex[at] === "0" ? "1" : "0"}${hex.slice(at + 1)}`;
    // Another leaf's index, then one changed proof hash.
    for (const signature of [flip(ecdsaHex + 5), flip(hex.length - 1)]) {
      expectEnvelope(await submit({ ...listing, signature }), 422, "invalid_signature");
    }
    // Another order under this order's bulk signature.
    const salt = (BigInt(listing.parameters.salt as string) + 1n).toString();
    expectEnvelope(await submit({ ...listing, parameters: { ...listing.parameters, salt } }), 422, "invalid_signature");
    // The listing itself, untouched, is fine.
    expect((await submit(listing)).status).toBe(201);
  });
});

// The tree's digest checked against viem's own EIP-712 encoding of a BulkOrder, with no chain:
// both leaves of a height-1 tree, in the 65-byte form seaport-js never produces, v 0/1 included.
describe("bulk-order digests", () => {
  it("match the BulkOrder typed data a wallet signs, leaf by leaf", async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const offerer = account.address.toLowerCase();
    const seaport = seaportAddress();
    const orders = ["7", "8"].map((tokenId) => listingComponents(offerer, "0x00000000000000000000000000000000000000aa", tokenId, ETHER));
    const signed = await account.signTypedData({
      domain: seaportDomain(1868, seaport),
      types: { BulkOrder: [{ name: "tree", type: "OrderComponents[2]" }], ...SEAPORT_EIP712_TYPES },
      primaryType: "BulkOrder",
      message: { tree: orders.map(toBig) } as never,
    });
    expect((signed.length - 2) / 2).toBe(65);
    const hashes = orders.map((order) => orderHashOf(order as never));
    for (const [index, order] of orders.entries()) {
      const bulk = `${signed}${index.toString(16).padStart(6, "0")}${hashes[1 - index]!.slice(2)}`;
      expect(await offererSignature(env.RPC_URL, 1868, seaport, order as never, bulk)).toBe(bulk.toLowerCase());
      // v as 0 or 1: Seaport's ecrecover wants 27 or 28, so that is what is stored.
      const v = Number.parseInt(signed.slice(130, 132), 16);
      const lowV = `${signed.slice(0, 130)}${(v - 27).toString(16).padStart(2, "0")}${bulk.slice(132)}`;
      expect(await offererSignature(env.RPC_URL, 1868, seaport, order as never, lowV)).toBe(bulk.toLowerCase());
    }
    // The other leaf's index with this leaf's proof leads elsewhere.
    const swapped = `${signed}000001${hashes[1]!.slice(2)}`;
    expect(await offererSignature(env.RPC_URL, 1868, seaport, orders[0] as never, swapped)).toBeNull();
  });
});
