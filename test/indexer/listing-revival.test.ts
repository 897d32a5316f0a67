// Listings that went inactive come back once their offerer can deliver again (the token returns,
// Seaport's approval is granted again), and only when the chain says the order would fill: a
// per-token approval cleared by the transfer, or a cancellation meanwhile, keeps it dead. A listing
// through a conduit follows the conduit's approval, not Seaport's (decision 55).
import { env } from "cloudflare:workers";
import { encodeFunctionData, type Hex } from "viem";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { conduitControllerAbi } from "../../src/chain/artifacts/conduit-controller";
import { dropErc721Abi } from "../../src/chain/artifacts/drop-erc721";
import { seaportAbi } from "../../src/chain/artifacts/seaport";
import { getChain } from "../../src/lib/chains";
import { MAX_REVIVAL_CHECKS_PER_RANGE, reviveListings } from "../../src/services/indexer/revive-listings";
import { chainClient, ETHER, fund, ownerOf, waitForTransaction } from "../helpers/chain";
import { claimConfirmed, setApprovalForAll } from "../helpers/drops";
import { interceptFetch } from "../helpers/fetch-spy";
import { call } from "../helpers/http";
import { nextBlock, runIndex } from "../helpers/indexer";
import { createTestProject, type TestProject } from "../helpers/projects";
import { listingComponents, seaportJsCancel, seaportJsList, viemSignOrder } from "../helpers/seaport";
import { incrementCounterCalldata, seaportAddress } from "../helpers/seaport-basic-order";
import { freshWallet } from "../helpers/wallets";

type Wallet = Awaited<ReturnType<typeof freshWallet>>;
let project: TestProject;
let contract: string;
let seller: Wallet;
let friend: Wallet;

const accept = async (signature: string, parameters: unknown) => {
  const accepted = await call("/v1/orders", { apiKey: project.apiKey, body: { signature, parameters, chainId: 1868 } });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
  return accepted.body.orderHash as string;
};
const list = async (tokenId: string) => {
  const listing = await seaportJsList({ privateKey: seller.privateKey, token: contract, tokenId, price: ETHER / 20n });
  return { orderHash: await accept(listing.signature, listing.parameters), parameters: listing.parameters };
};
const transfer = (from: Wallet, to: Wallet, tokenId: bigint) =>
  from.send({ to: contract, data: encodeFunctionData({ abi: dropErc721Abi, functionName: "transferFrom", args: [from.address, to.address, tokenId] }) });
const approveSeaportForAll = (approved: boolean) => setApprovalForAll(seller, contract, seaportAddress(), approved);
const indexed = async () => {
  await nextBlock();
  await runIndex();
};
/** The indexed event of an ERC-721 transfer mined in `receipt` (its first log). */
const transferEvent = (receipt: { blockNumber: bigint; blockHash: Hex; transactionHash: Hex }, from: Wallet, to: Wallet, tokenId: string) => {
  const ref = { logIndex: 0, blockNumber: Number(receipt.blockNumber), blockHash: receipt.blockHash, transactionHash: receipt.transactionHash };
  return { type: "erc721" as const, transfer: { contract, from: from.address.toLowerCase(), to: to.address.toLowerCase(), tokenId, ...ref }, ...ref };
};
const statusOf = async (orderHash: string) => (await call(`/v1/orders/${orderHash}`, { apiKey: project.apiKey })).body.status as string;
const bestListingOf = async (tokenId: string) => (await call(`/v1/assets/1868/${contract}/${tokenId}`, { apiKey: project.apiKey })).body.bestListing?.orderHash ?? null;

beforeAll(async () => {
  project = await createTestProject("Listing revival");
  await fund(project.walletAddress);
  [seller, friend] = await Promise.all([freshWallet(), freshWallet()]);
  const deployed = await call("/v1/project-wallet/drops/deploy", {
    secretKey: project.secretKey,
    body: { name: "Round trips", metadataStorageType: "self-hosted", baseUri: "https://example.com/trip/" },
  });
  contract = deployed.body.drop.contractAddress.toLowerCase();
  const claimed = await call("/v1/project-wallet/drops/claim", {
    secretKey: project.secretKey,
    body: { contractAddress: contract, recipientAddress: seller.address, quantity: 4 },
  });
  expect((await waitForTransaction(claimed.body.transactions[0].id, project.apiKey)).status).toBe("confirmed");
});

/** A new token listed by its holder (approved for all), then sent away and indexed: the listing is inactive. */
async function listedThenMovedAway() {
  const owner = await freshWallet();
  const [tokenId] = await claimConfirmed(project, { contractAddress: contract, recipientAddress: owner.address, quantity: 1 });
  if (!tokenId) throw new Error("the claim minted no token");
  await setApprovalForAll(owner, contract, seaportAddress());
  const parameters = listingComponents(owner.address, contract, tokenId, ETHER / 20n);
  const orderHash = await accept(await viemSignOrder(owner, parameters, { chainId: 1868, verifyingContract: seaportAddress() }), parameters);
  const away = await freshWallet();
  await transfer(owner, away, BigInt(tokenId));
  await indexed();
  expect(await statusOf(orderHash)).toBe("inactive");
  return { owner, tokenId, orderHash, away };
}

describe("inactive listings", () => {
  it("come back, as the token's best listing, when the token returns to the offerer", async () => {
    const { orderHash } = await list("1");
    await transfer(seller, friend, 1n);
    await indexed();
    expect(await statusOf(orderHash)).toBe("inactive");
    expect(await bestListingOf("1")).toBeNull();

    await transfer(friend, seller, 1n);
    await indexed();
    expect(await statusOf(orderHash)).toBe("active");
    expect(await bestListingOf("1")).toBe(orderHash);
  });

  it("stay inactive while Seaport's approval is revoked, and come back when it is granted again", async () => {
    const { orderHash } = await list("2");
    await transfer(seller, friend, 2n);
    await approveSeaportForAll(false);
    await transfer(friend, seller, 2n);
    await indexed();
    expect(await statusOf(orderHash)).toBe("inactive");

    await approveSeaportForAll(true);
    await indexed();
    expect(await statusOf(orderHash)).toBe("active");
    expect(await bestListingOf("2")).toBe(orderHash);
  });

  it("stay inactive when the listing relied on a per-token approval, which the transfer cleared", async () => {
    const owner = await freshWallet();
    await transfer(seller, owner, 3n);
    await owner.send({ to: contract, data: encodeFunctionData({ abi: dropErc721Abi, functionName: "approve", args: [seaportAddress(), 3n] }) });
    const parameters = listingComponents(owner.address, contract, "3", ETHER / 20n);
    const orderHash = await accept(await viemSignOrder(owner, parameters, { chainId: 1868, verifyingContract: seaportAddress() }), parameters);
    await transfer(owner, friend, 3n);
    await indexed();
    expect(await statusOf(orderHash)).toBe("inactive");

    await transfer(friend, owner, 3n);
    await indexed();
    expect(await statusOf(orderHash)).toBe("inactive");
    expect(await bestListingOf("3")).toBeNull();
  });

  it("stay inactive when the offerer raised its Seaport counter in a block the indexer has not reached", async () => {
    const { owner, tokenId, orderHash, away } = await listedThenMovedAway();

    const back = await transfer(away, owner, BigInt(tokenId));
    // Cancel-all at the head, after the token came back: Seaport will never fill the listing.
    await owner.send({ to: seaportAddress(), data: incrementCounterCalldata() });
    // The revival of a run whose safe head is the block of the return, not yet the increment's.
    await reviveListings(env.DB, getChain(env, 1868), [transferEvent(back, away, owner, tokenId)]);
    expect(await statusOf(orderHash)).toBe("inactive");
    expect(await bestListingOf(tokenId)).toBeNull();
  });

  it("stay inactive while D1 names another holder, whatever the chain answered, and come back once the return is applied", async () => {
    const { owner, tokenId, orderHash, away } = await listedThenMovedAway();

    // A hint whose chain reads say the order fills while D1 still records `away` as the holder,
    // as when a receipt moves the token during the reads.
    const back = await transfer(away, owner, BigInt(tokenId));
    await reviveListings(env.DB, getChain(env, 1868), [transferEvent(back, away, owner, tokenId)]);
    expect(await statusOf(orderHash)).toBe("inactive");
    expect(await bestListingOf(tokenId)).toBeNull();

    await indexed();
    expect(await statusOf(orderHash)).toBe("active");
    expect(await bestListingOf(tokenId)).toBe(orderHash);
  });

  it("come back at a later run when the chain could not be read as the token returned", async () => {
    const { owner, tokenId, orderHash, away } = await listedThenMovedAway();
    await transfer(away, owner, BigInt(tokenId));
    await nextBlock();
    const dueAt = async () => (await env.DB.prepare("select revival_due_at from orders where order_hash = ?").bind(orderHash).first<{ revival_due_at: number | null }>())?.revival_due_at;
    // Every contract read of the run fails: revival cannot check the listing.
    interceptFetch(async ({ body }, pass) => (body?.includes('"eth_call"') ? new Response("unavailable", { status: 503 }) : pass()));
    await runIndex().finally(() => vi.restoreAllMocks());
    expect(await statusOf(orderHash)).toBe("inactive");
    expect(await dueAt()).toEqual(expect.any(Number));

    // No new log concerns the listing: the next run checks it anyway.
    await runIndex();
    expect(await statusOf(orderHash)).toBe("active");
    expect(await bestListingOf(tokenId)).toBe(orderHash);
    expect(await dueAt()).toBeNull();
  });

  it("all come back when one approval hints at more listings than a range may check: the same run's retries check the rest", async () => {
    const owner = await freshWallet();
    const tokenIds = await claimConfirmed(project, { contractAddress: contract, recipientAddress: owner.address, quantity: MAX_REVIVAL_CHECKS_PER_RANGE + 2 });
    await setApprovalForAll(owner, contract, seaportAddress());
    const orderHashes: string[] = [];
    for (const tokenId of tokenIds) {
      const parameters = listingComponents(owner.address, contract, tokenId, ETHER / 20n);
      orderHashes.push(await accept(await viemSignOrder(owner, parameters, { chainId: 1868, verifyingContract: seaportAddress() }), parameters));
    }
    const statuses = async () => {
      const { results } = await env.DB.prepare("select status, revival_due_at from orders where order_hash in (select value from json_each(?))")
        .bind(JSON.stringify(orderHashes))
        .all<{ status: string; revival_due_at: number | null }>();
      return results;
    };
    await setApprovalForAll(owner, contract, seaportAddress(), false);
    await indexed();
    expect(new Set((await statuses()).map((row) => row.status))).toEqual(new Set(["inactive"]));

    await setApprovalForAll(owner, contract, seaportAddress(), true);
    await indexed();
    const after = await statuses();
    expect(after).toHaveLength(orderHashes.length);
    expect(after.filter((row) => row.status !== "active" || row.revival_due_at !== null)).toEqual([]);
  });

  it("stay cancelled when the offerer cancelled on Seaport while the token was away", async () => {
    const { orderHash, parameters } = await list("4");
    await transfer(seller, friend, 4n);
    await indexed();
    await seaportJsCancel(seller.privateKey, parameters as never);
    await transfer(friend, seller, 4n);
    await indexed();
    expect(await statusOf(orderHash)).toBe("cancelled");
    expect(await bestListingOf("4")).toBeNull();
  });
});

describe("listings through a conduit", () => {
  const sent = async (receipt: Promise<{ status: string }>) => expect((await receipt).status).toBe("success");
  const approveForAll = (wallet: Wallet, operator: string, approved: boolean) => setApprovalForAll(wallet, contract, operator, approved);

  /** A conduit owned by `owner` with Seaport's channel open, as marketplaces run theirs. */
  async function openConduit(owner: Wallet): Promise<{ conduitKey: Hex; conduit: string }> {
    const client = chainClient();
    const [, , controller] = await client.readContract({ address: seaportAddress(), abi: seaportAbi, functionName: "information" });
    const conduitKey = `${owner.address}${"00".repeat(11)}01` as Hex; // a key starts with its creator's address
    await sent(owner.send({ to: controller, data: encodeFunctionData({ abi: conduitControllerAbi, functionName: "createConduit", args: [conduitKey, owner.address] }) }));
    const [conduit] = await client.readContract({ address: controller, abi: conduitControllerAbi, functionName: "getConduit", args: [conduitKey] });
    await sent(owner.send({ to: controller, data: encodeFunctionData({ abi: conduitControllerAbi, functionName: "updateChannel", args: [conduit, seaportAddress(), true] }) }));
    return { conduitKey, conduit: conduit.toLowerCase() };
  }

  it("go inactive when the conduit's approval is revoked, not Seaport's, come back when it is granted again, and fill", async () => {
    const owner = await freshWallet();
    const [claimedId] = await claimConfirmed(project, { contractAddress: contract, recipientAddress: owner.address, quantity: 1 });
    const tokenId = BigInt(claimedId!);
    const { conduitKey, conduit } = await openConduit(owner);
    await approveForAll(owner, conduit, true);
    const parameters = listingComponents(owner.address, contract, String(tokenId), ETHER / 20n, { conduitKey });
    const orderHash = await accept(await viemSignOrder(owner, parameters, { chainId: 1868, verifyingContract: seaportAddress() }), parameters);

    // Seaport itself never moves this order's token: taking its approval away changes nothing.
    await approveForAll(owner, seaportAddress(), true);
    await approveForAll(owner, seaportAddress(), false);
    await indexed();
    expect(await statusOf(orderHash)).toBe("active");

    await approveForAll(owner, conduit, false);
    await indexed();
    expect(await statusOf(orderHash)).toBe("inactive");
    expect(await bestListingOf(String(tokenId))).toBeNull();

    await approveForAll(owner, conduit, true);
    await indexed();
    expect(await statusOf(orderHash)).toBe("active");
    expect(await bestListingOf(String(tokenId))).toBe(orderHash);

    // The order was real: Seaport fills it through the conduit.
    const bought = await call("/v1/project-wallet/orders/buy", { secretKey: project.secretKey, body: { chainId: 1868, orderHashes: [orderHash] } });
    expect(bought.status, JSON.stringify(bought.body)).toBe(200);
    const [item] = bought.body[0].result;
    expect(item.type, JSON.stringify(item)).toBe("transaction");
    expect((await waitForTransaction(item.result.id, project.apiKey)).status).toBe("confirmed");
    expect((await ownerOf(contract, tokenId)).toLowerCase()).toBe(project.walletAddress.toLowerCase());
  });
});
