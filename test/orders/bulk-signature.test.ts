// Listings signed together with one Seaport bulk-order signature (OpenSea's multi-item listing):
// each order carries the ECDSA signature of the tree, its index and the proof (decision 102).
import { beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { ETHER, fund, ownerOf, waitForTransaction } from "../helpers/chain";
import { claimConfirmed, deployConfirmedDrop } from "../helpers/drops";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { seaportJsListBulk, type SeaportJsOrder } from "../helpers/seaport";
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
