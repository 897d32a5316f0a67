// A listing may rest on the token's own ERC-721 approval (decision 86). The indexer follows that
// approval: cleared or given to someone else, or cleared by the holder's transfer to itself, the
// listing goes inactive; given back to Seaport, it returns. A listing an approval for all still
// covers stays active through any of it (decision 91).
import { env } from "cloudflare:workers";
import { encodeAbiParameters, encodeEventTopics, encodeFunctionData, parseAbiItem, type Log } from "viem";
import { beforeAll, describe, expect, it } from "vitest";
import { dropErc721Abi } from "../../src/chain/artifacts/drop-erc721";
import { tokenApprovals } from "../../src/chain/transfer-logs";
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

const sent = async <R extends { status: string }>(receipt: Promise<R>) => {
  const mined = await receipt;
  expect(mined.status).toBe("success");
  return mined;
};
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
    const updatedAt = () => env.DB.prepare("select order_hash, updated_at from orders where order_hash in (?, ?) order by order_hash").bind(approvedAway.orderHash, sentToSelf.orderHash).all();
    const before = (await updatedAt()).results;
    const other = await freshWallet();
    const approval = await approveToken(owner, other.address, approvedAway.tokenId);
    await transferToSelf(owner, sentToSelf.tokenId);
    await indexed();
    for (const { tokenId, orderHash } of listed) {
      expect(await statusOf(orderHash), `token ${tokenId}`).toBe("active");
      expect(await bestListingOf(tokenId), `token ${tokenId}`).toBe(orderHash);
    }
    // Never deactivated (a revival would have touched them): the chain said the approval for all
    // covers them before the logs were applied, and the Approval, which ends nothing, was not claimed.
    expect((await updatedAt()).results).toEqual(before);
    const claims = await env.DB.prepare("select count(*) as n from chain_events where transaction_hash = ?").bind(approval.transactionHash.toLowerCase()).first<{ n: number }>();
    expect(claims?.n).toBe(0);
  });
});

describe("tokenApprovals", () => {
  it("decodes ERC-721 Approvals and skips ERC-20 ones, which share the topic with one topic fewer", () => {
    const [owner, spender] = ["0x00000000000000000000000000000000000000a1", "0x00000000000000000000000000000000000000b2"] as const;
    const log = (topics: readonly unknown[], data: `0x${string}`, logIndex: number) =>
      ({ address: "0x00000000000000000000000000000000000000C3", topics, data, logIndex, blockNumber: 5n, blockHash: `0x${"ab".repeat(32)}`, transactionHash: `0x${"cd".repeat(32)}`, transactionIndex: 0, removed: false }) as unknown as Log;
    const erc721 = encodeEventTopics({ abi: [parseAbiItem("event Approval(address indexed owner, address indexed approved, uint256 indexed tokenId)")], args: { owner, approved: spender, tokenId: 7n } });
    const erc20 = encodeEventTopics({ abi: [parseAbiItem("event Approval(address indexed owner, address indexed spender, uint256 value)")], args: { owner, spender } });
    expect(erc20[0]).toBe(erc721[0]);
    const decoded = tokenApprovals([log(erc721, "0x", 0), log(erc20, encodeAbiParameters([{ type: "uint256" }], [10n ** 18n]), 1)]);
    expect(decoded).toEqual([expect.objectContaining({ contract: "0x00000000000000000000000000000000000000c3", owner, approved: spender, tokenId: "7", logIndex: 0 })]);
  });
});
