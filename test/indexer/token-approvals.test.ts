// A listing may rest on the token's own ERC-721 approval (decision 86). The indexer follows that
// approval: cleared or given to someone else, or cleared by the holder's transfer to itself, the
// listing goes inactive; given back to Seaport, it returns. A listing an approval for all still
// covers stays active through any of it (decision 91).
import { encodeFunctionData } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { dropErc721Abi } from "../../src/chain/artifacts/drop-erc721";
import { ETHER } from "../helpers/chain";
import { claimConfirmed, deployConfirmedDrop, setApprovalForAll } from "../helpers/drops";
import { call } from "../helpers/http";
import { nextBlock, runIndex } from "../helpers/indexer";
import { createTestProject, type TestProject } from "../helpers/projects";
import { listingComponents, viemSignOrder } from "../helpers/seaport";
import { seaportAddress } from "../helpers/seaport-basic-order";
import { freshWallet } from "../helpers/wallets";

type Wallet = Awaited<ReturnType<typeof freshWallet>>;
const ZERO = "0x0000000000000000000000000000000000000000";
let project: TestProject;
let contract: string;

const sent = async (receipt: Promise<{ status: string }>) => expect((await receipt).status).toBe("success");
const approveToken = (owner: Wallet, approved: string, tokenId: string) =>
  sent(owner.send({ to: contract, data: encodeFunctionData({ abi: dropErc721Abi, functionName: "approve", args: [approved as `0x${string}`, BigInt(tokenId)] }) }));
const transferToSelf = (owner: Wallet, tokenId: string) =>
  sent(owner.send({ to: contract, data: encodeFunctionData({ abi: dropErc721Abi, functionName: "transferFrom", args: [owner.address, owner.address, BigInt(tokenId)] }) }));
const indexed = async () => {
  await nextBlock();
  await runIndex();
};
const statusOf = async (orderHash: string) => (await call(`/v1/orders/${orderHash}`, { apiKey: project.apiKey })).body.status as string;
const bestListingOf = async (tokenId: string) => (await call(`/v1/assets/1868/${contract}/${tokenId}`, { apiKey: project.apiKey })).body.bestListing?.orderHash ?? null;

/** Wallets holding new tokens, listed with Seaport approved for each token only or for all. */
async function listedTokens(approval: "token" | "all", quantity: number): Promise<{ owner: Wallet; listed: { tokenId: string; orderHash: string }[] }> {
  const owner = await freshWallet();
  const tokenIds = await claimConfirmed(project, { contractAddress: contract, recipientAddress: owner.address, quantity });
  expect(tokenIds).toHaveLength(quantity);
  if (approval === "all") await setApprovalForAll(owner, contract, seaportAddress(), true);
  const listed = [];
  for (const tokenId of tokenIds) {
    if (approval === "token") await approveToken(owner, seaportAddress(), tokenId);
    const parameters = listingComponents(owner.address, contract, tokenId, ETHER / 20n);
    const accepted = await call("/v1/orders", {
      apiKey: project.apiKey,
      body: { signature: await viemSignOrder(owner, parameters, { chainId: 1868, verifyingContract: seaportAddress() }), parameters, chainId: 1868 },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    listed.push({ tokenId, orderHash: accepted.body.orderHash as string });
  }
  await indexed();
  for (const { orderHash } of listed) expect(await statusOf(orderHash)).toBe("active");
  return { owner, listed };
}

beforeAll(async () => {
  project = await createTestProject("Token approvals");
  const drop = await deployConfirmedDrop(project, { name: "Approvals", metadataStorageType: "self-hosted", baseUri: "https://example.com/approvals/" });
  contract = drop.contractAddress.toLowerCase();
});

describe("a listing on the token's own approval", () => {
  it("goes inactive when the owner clears the approval, gives it to another address or transfers the token to itself, and comes back when Seaport is approved again", async () => {
    const { owner, listed } = await listedTokens("token", 3);
    const [cleared, givenAway, sentToSelf] = listed as [(typeof listed)[0], (typeof listed)[0], (typeof listed)[0]];
    const other = await freshWallet();
    await approveToken(owner, ZERO, cleared.tokenId);
    await approveToken(owner, other.address, givenAway.tokenId);
    await transferToSelf(owner, sentToSelf.tokenId);
    await indexed();
    for (const { tokenId, orderHash } of listed) {
      expect(await statusOf(orderHash), `token ${tokenId}`).toBe("inactive");
      expect(await bestListingOf(tokenId), `token ${tokenId}`).toBeNull();
    }

    await approveToken(owner, seaportAddress(), cleared.tokenId);
    await indexed();
    expect(await statusOf(cleared.orderHash)).toBe("active");
    expect(await bestListingOf(cleared.tokenId)).toBe(cleared.orderHash);
  });
});

describe("a listing an approval for all covers", () => {
  it("stays active, and the token's best listing, when the token's own approval changes or the holder transfers it to itself", async () => {
    const { owner, listed } = await listedTokens("all", 2);
    const [approvedAway, sentToSelf] = listed as [(typeof listed)[0], (typeof listed)[0]];
    const other = await freshWallet();
    await approveToken(owner, other.address, approvedAway.tokenId);
    await transferToSelf(owner, sentToSelf.tokenId);
    await indexed();
    for (const { tokenId, orderHash } of listed) {
      expect(await statusOf(orderHash), `token ${tokenId}`).toBe("active");
      expect(await bestListingOf(tokenId), `token ${tokenId}`).toBe(orderHash);
    }
  });
});
