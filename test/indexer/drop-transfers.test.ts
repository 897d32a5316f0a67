// The indexer follows a drop's tokens after the service minted them: direct transfers, public
// claims, listings that die with a transfer or a revoked approval, burns; and a re-read changes nothing.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { encodeFunctionData, type Address } from "viem";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { dropErc721Abi } from "../../src/chain/artifacts/drop-erc721";
import worker from "../../src/index";
import { PENDING_HOLD_MAX_MS } from "../../src/services/indexer/apply-logs";
import { seedAsset, seedCollection, seedListing, seedTransaction } from "../fixtures/seed";
import { chainClient, dropReadAbi, fund, waitForTransaction } from "../helpers/chain";
import { interceptFetch } from "../helpers/fetch-spy";
import { call } from "../helpers/http";
import { dumpIndexedTables, fundedAccount, nextBlock, runIndex, type FundedAccount } from "../helpers/indexer";
import { createTestProject, type TestProject } from "../helpers/projects";
import { listingComponents, viemSignOrder } from "../helpers/seaport";
import { seaportAddress } from "../helpers/seaport-basic-order";
import { freshWallet } from "../helpers/wallets";

let project: TestProject;
let holder: FundedAccount;
let drop: { id: string; contractAddress: string };
let contract: string;

const transferFrom = (from: string, to: string, tokenId: bigint) =>
  encodeFunctionData({ abi: dropErc721Abi, functionName: "transferFrom", args: [from as Address, to as Address, tokenId] });

async function ownedTokenIds(owner: string) {
  const { status, body } = await call(`/v1/assets/explore?ownerAddress=${owner}&contractAddress=${contract}`, { apiKey: project.apiKey });
  expect(status).toBe(200);
  return body.data.map((asset: { tokenId: string }) => asset.tokenId).sort();
}

async function orderRow(orderHash: string) {
  return env.DB.prepare("select status from orders where order_hash = ?").bind(orderHash).first<{ status: string }>();
}

async function bestOrderHash(tokenId: string) {
  const row = await env.DB.prepare("select best_order_hash from assets where contract_address = ? and token_id = ?").bind(contract, tokenId).first<{ best_order_hash: string | null }>();
  return row?.best_order_hash ?? null;
}

/** A listing the service knows about, recorded as the token's best listing. */
async function knownListing(tokenId: string, offerer: string) {
  const listing = await seedListing({ chainId: 1868, contractAddress: contract, tokenId } as never, 10n ** 16n, { offerer });
  await env.DB.prepare("update assets set best_price_sort = ?, best_order_hash = ? where contract_address = ? and token_id = ?")
    .bind(listing.priceSort, listing.orderHash, contract, tokenId)
    .run();
  return listing.orderHash;
}

beforeAll(async () => {
  project = await createTestProject("Indexer drop transfers");
  await fund(project.walletAddress);
  holder = await fundedAccount();
  const deployed = await call("/v1/project-wallet/drops/deploy", {
    secretKey: project.secretKey,
    body: { name: "Indexed Pass", metadataStorageType: "metadata-api", defaultTokenMetadata: { name: "Indexed Pass", image: "https://example.com/pass.png" } },
  });
  expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
  drop = deployed.body.drop;
  contract = drop.contractAddress.toLowerCase();
  const claimed = await call("/v1/project-wallet/drops/claim", {
    secretKey: project.secretKey,
    body: { contractAddress: drop.contractAddress, recipientAddress: holder.address, quantity: 4 },
  });
  expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
  await waitForTransaction(deployed.body.transactions[0].id, project.apiKey);
  expect((await waitForTransaction(claimed.body.transactions[0].id, project.apiKey)).status).toBe("confirmed");
});

describe("indexing a drop's own collection", () => {
  it("moves ownership on a direct transfer and deactivates the old owner's listing", async () => {
    const receiver = await fundedAccount();
    const listed = await knownListing("1", holder.address);
    const otherToken = await knownListing("2", holder.address);
    const transfer = await holder.send({ to: contract, data: transferFrom(holder.address, receiver.address, 1n) });
    await nextBlock();

    const report = await runIndex();
    expect(report.toBlock).toBeGreaterThanOrEqual(Number(transfer.blockNumber));
    expect(report.logs).toBeGreaterThan(0);

    expect(await ownedTokenIds(receiver.address)).toEqual(["1"]);
    expect(await ownedTokenIds(holder.address)).toEqual(["2", "3", "4"]);
    expect((await orderRow(listed))?.status).toBe("inactive");
    expect(await bestOrderHash("1")).toBeNull();
    // Listings of other tokens are untouched.
    expect((await orderRow(otherToken))?.status).toBe("active");
    expect(await bestOrderHash("2")).toBe(otherToken);
  });

  it("creates the asset of a public claim made directly on chain, with the drop's default metadata", async () => {
    const claimer = await fundedAccount();
    await claimer.send({
      to: contract,
      data: encodeFunctionData({ abi: dropErc721Abi, functionName: "claim", args: [claimer.account.address, 1n, [], 0n, 0n] }),
    });
    // While a claim the service sent for this drop waits for its receipt, the minted token may be
    // that claim's, whose own metadata is written with the receipt: no default is served meanwhile.
    const serviceClaim = await seedTransaction(project.id, { status: "pending", kind: "claim", subjectId: drop.id });
    const meanwhile = await call(`/v1/metadata/1868/${contract}/5`);
    expect(meanwhile.status).toBe(404);
    expect(meanwhile.headers.get("cache-control")).toBe("no-store");
    await env.DB.prepare("update transactions set status = 'confirmed' where id = ?").bind(serviceClaim.id).run();
    // Marketplaces fetch tokenURI when they see the mint, before the indexer has run: the chain says it exists.
    const early = await call(`/v1/metadata/1868/${contract}/5`);
    expect(early.status, JSON.stringify(early.body)).toBe(200);
    expect(early.body).toEqual({ name: "Indexed Pass", image: "https://example.com/pass.png" });
    expect((await call(`/v1/metadata/1868/${contract}/6`)).status).toBe(404);
    await nextBlock();
    await runIndex();

    expect(await ownedTokenIds(claimer.address)).toEqual(["5"]);
    const asset = await call(`/v1/assets/1868/${contract}/5`, { apiKey: project.apiKey });
    expect(asset.status).toBe(200);
    expect(asset.body).toMatchObject({ tokenId: "5", name: "Indexed Pass", imageUrl: "https://example.com/pass.png", schema: "ERC721" });
    expect(asset.body.tokenUri).toBe(`http://mintyard.test/v1/metadata/1868/${drop.contractAddress}/5`);
  });

  it("fills in the metadata of a token listed before its mint was applied", async () => {
    const claimer = await freshWallet();
    await claimer.send({
      to: contract,
      data: encodeFunctionData({ abi: dropErc721Abi, functionName: "claim", args: [claimer.account.address, 1n, [], 0n, 0n] }),
    });
    const tokenId = (await chainClient().readContract({ address: contract as Address, abi: dropReadAbi, functionName: "totalMinted" })).toString();
    await claimer.send({ to: contract, data: encodeFunctionData({ abi: dropErc721Abi, functionName: "setApprovalForAll", args: [seaportAddress(), true] }) });
    const order = listingComponents(claimer.address, contract, tokenId, 10n ** 16n);
    const signature = await viemSignOrder(claimer, order, { chainId: 1868, verifyingContract: seaportAddress() });
    const listed = await call("/v1/orders", { apiKey: project.apiKey, body: { signature, parameters: order, chainId: 1868 } });
    expect(listed.status, JSON.stringify(listed.body)).toBe(201);
    // The listing made the asset row, knowing nothing of the token's metadata yet.
    expect((await call(`/v1/assets/1868/${contract}/${tokenId}`, { apiKey: project.apiKey })).body).toMatchObject({ name: null, imageUrl: null });

    await nextBlock();
    await runIndex();
    const asset = await call(`/v1/assets/1868/${contract}/${tokenId}`, { apiKey: project.apiKey });
    expect(asset.body).toMatchObject({ name: "Indexed Pass", imageUrl: "https://example.com/pass.png" });
    expect(asset.body.tokenUri).toBe(`http://mintyard.test/v1/metadata/1868/${drop.contractAddress}/${tokenId}`);
    expect(asset.body.bestListing?.orderHash).toBe(listed.body.orderHash);
    const found = await call(`/v1/assets/explore?contractAddress=${contract}&search=indexed%20pass`, { apiKey: project.apiKey });
    expect(found.body.data.map((a: { tokenId: string }) => a.tokenId)).toContain(tokenId);
  });

  it("removes a burned token from the asset reads and retires its listing", async () => {
    const burner = await freshWallet();
    await burner.send({
      to: contract,
      data: encodeFunctionData({ abi: dropErc721Abi, functionName: "claim", args: [burner.account.address, 2n, [], 0n, 0n] }),
    });
    const last = await chainClient().readContract({ address: contract as Address, abi: dropReadAbi, functionName: "totalMinted" });
    const [kept, burned] = [(last - 1n).toString(), last.toString()];
    await nextBlock();
    await runIndex();
    const listed = await knownListing(burned, burner.address);
    expect(await ownedTokenIds(burner.address)).toEqual([kept, burned].sort());
    const metadata = `/v1/metadata/1868/${contract}/${burned}`;
    expect((await call(metadata)).status).toBe(200);

    await burner.send({ to: contract, data: encodeFunctionData({ abi: dropErc721Abi, functionName: "burn", args: [BigInt(burned)] }) });
    await nextBlock();
    await runIndex();

    const gone = await call(`/v1/assets/1868/${contract}/${burned}`, { apiKey: project.apiKey });
    expect(gone.status).toBe(404);
    expect(await ownedTokenIds(burner.address)).toEqual([kept]);
    const all = await call(`/v1/assets/explore?contractAddress=${contract}&limit=100`, { apiKey: project.apiKey });
    expect(all.body.data.map((a: { tokenId: string }) => a.tokenId)).not.toContain(burned);
    expect(all.body.data.map((a: { tokenId: string }) => a.tokenId)).toContain(kept);
    const searched = await call(`/v1/assets/explore?contractAddress=${contract}&search=indexed%20pass&limit=100`, { apiKey: project.apiKey });
    expect(searched.body.data.map((a: { tokenId: string }) => a.tokenId)).not.toContain(burned);
    expect((await orderRow(listed))?.status).toBe("inactive");
    const order = await call(`/v1/orders/${listed}`, { apiKey: project.apiKey });
    expect([order.status, order.body.status]).toEqual([200, "inactive"]);
    expect((await call(metadata)).status).toBe(404);
  });

  it("deactivates the owner's listings on the contract when Seaport's approval is revoked", async () => {
    const seaport = seaportAddress();
    const listed = await knownListing("3", holder.address);
    const approve = (approved: boolean) => encodeFunctionData({ abi: dropErc721Abi, functionName: "setApprovalForAll", args: [seaport, approved] });
    await holder.send({ to: contract, data: approve(true) });
    await nextBlock();
    await runIndex();
    expect((await orderRow(listed))?.status).toBe("active");

    await holder.send({ to: contract, data: approve(false) });
    await nextBlock();
    await runIndex();
    expect((await orderRow(listed))?.status).toBe("inactive");
    expect(await bestOrderHash("3")).toBeNull();
  });

  it("changes nothing when a range is read again", async () => {
    await nextBlock();
    const { toBlock } = await runIndex();
    const before = await dumpIndexedTables(toBlock);
    expect(before.chain_events!.length).toBeGreaterThan(0);

    await runIndex();
    expect(await dumpIndexedTables(toBlock)).toEqual(before);

    // Rewind the cursor to before the drop existed and read everything again.
    const deployBlock = await env.DB.prepare(
      "select block_number as block from transactions where kind = 'deploy' and subject_id = ?",
    )
      .bind(drop.id)
      .first<{ block: number }>();
    await env.DB.prepare("update indexer_cursors set last_block = ? where chain_id = 1868").bind(deployBlock!.block - 1).run();
    const reread = await runIndex();
    expect(reread.fromBlock).toBe(deployBlock!.block);
    expect(reread.logs).toBeGreaterThanOrEqual(before.chain_events!.length);
    expect(await dumpIndexedTables(toBlock)).toEqual(before);
  });
});

describe("the cron trigger, the lease and the sweep", () => {
  const cursor = async () =>
    (await env.DB.prepare("select last_block from indexer_cursors where chain_id = 1868").first<{ last_block: number }>())!.last_block;

  it("indexes from the scheduled handler", async () => {
    const receiver = await fundedAccount();
    const transfer = await holder.send({ to: contract, data: transferFrom(holder.address, receiver.address, 4n) });
    await nextBlock();
    const ctx = createExecutionContext();
    await worker.scheduled!(createScheduledController({ cron: "* * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(await cursor()).toBeGreaterThanOrEqual(Number(transfer.blockNumber));
    expect(await ownedTokenIds(receiver.address)).toEqual(["4"]);
  });

  it("leaves a chain alone while another run holds its lease", async () => {
    await nextBlock();
    const held = await cursor();
    await env.DB.prepare("update indexer_cursors set lease_token = 'other-run', lease_until = ? where chain_id = 1868").bind(Date.now() + 60_000).run();
    expect(await runIndex()).toEqual({ chainId: 1868, fromBlock: held + 1, toBlock: held, logs: 0 });
    expect(await cursor()).toBe(held);

    // A lease whose run died lapses.
    await env.DB.prepare("update indexer_cursors set lease_until = ? where chain_id = 1868").bind(Date.now() - 1).run();
    expect((await runIndex()).toBlock).toBeGreaterThan(held);
  });

  it("stops before a transaction the engine is still finalising, and applies it once it is final", async () => {
    const receiver = await fundedAccount();
    const transfer = await holder.send({ to: contract, data: transferFrom(holder.address, receiver.address, 2n) });
    // As if the service had sent it and its watcher had not seen the receipt yet.
    const row = await seedTransaction(project.id, { status: "pending", transactionHash: transfer.transactionHash });
    await nextBlock();
    expect((await runIndex()).toBlock).toBe(Number(transfer.blockNumber) - 1);
    expect(await ownedTokenIds(receiver.address)).toEqual([]);

    await env.DB.prepare("update transactions set status = 'confirmed' where id = ?").bind(row.id).run();
    expect((await runIndex()).toBlock).toBeGreaterThanOrEqual(Number(transfer.blockNumber));
    expect(await ownedTokenIds(receiver.address)).toEqual(["2"]);
  });

  it("does not wait for a pending row older than the hold's limit: its watcher is not settling it", async () => {
    const receiver = await fundedAccount();
    const transfer = await holder.send({ to: contract, data: transferFrom(holder.address, receiver.address, 3n) });
    await seedTransaction(project.id, {
      status: "pending",
      transactionHash: transfer.transactionHash,
      createdAt: new Date(Date.now() - PENDING_HOLD_MAX_MS - 60_000),
    });
    await nextBlock();
    expect((await runIndex()).toBlock).toBeGreaterThanOrEqual(Number(transfer.blockNumber));
    expect(await ownedTokenIds(receiver.address)).toEqual(["3"]);
  });

  it("reads a block the node refuses for the whole address list part by part, down to one address", async () => {
    const claimer = await fundedAccount();
    const minted = await claimer.send({ to: contract, data: encodeFunctionData({ abi: dropErc721Abi, functionName: "claim", args: [claimer.account.address, 1n, [], 0n, 0n] }) });
    await nextBlock();
    // A provider that takes one address per filter (the drop's contract and Seaport make two).
    const refusedLists: number[] = [];
    interceptFetch(async ({ body }, pass) => {
      const request = body ? (JSON.parse(body) as { id: number; method: string; params: [{ address: string[] }] }) : null;
      if (request?.method !== "eth_getLogs" || request.params[0].address.length < 2) return pass();
      refusedLists.push(request.params[0].address.length);
      return Response.json({ jsonrpc: "2.0", id: request.id, error: { code: -32005, message: "too many addresses in filter" } });
    });
    const report = await runIndex().finally(() => vi.restoreAllMocks());
    expect(refusedLists.length).toBeGreaterThan(0);
    expect(report.toBlock).toBeGreaterThanOrEqual(Number(minted.blockNumber));
    expect(await ownedTokenIds(claimer.address)).toHaveLength(1);
  });

  it("expires listings past their end time and deletes idempotency records past theirs", async () => {
    const collection = await seedCollection();
    const asset = await seedAsset(collection, "1");
    const stale = await seedListing(asset, 10n ** 15n, { endTime: new Date(Date.now() - 1_000) });
    const fresh = await seedListing(asset, 10n ** 16n);
    // The offerer of this one lost the token before it ended: it can never fill again either.
    const staleInactive = await seedListing(asset, 10n ** 14n, { status: "inactive", endTime: new Date(Date.now() - 1_000) });
    await env.DB.prepare("update assets set best_price_sort = ?, best_order_hash = ? where id = ?").bind(stale.priceSort, stale.orderHash, asset.id).run();
    const idempotency = "insert into idempotency_keys (project_id, key, request_hash, status, created_at, expires_at) values (?, ?, 'h', 'completed', 0, ?)";
    await env.DB.batch([
      env.DB.prepare(idempotency).bind(project.id, "old", Date.now() - 1),
      env.DB.prepare(idempotency).bind(project.id, "recent", Date.now() + 60_000),
    ]);

    await runIndex();
    const statuses = await env.DB.prepare("select order_hash, status from orders where order_hash in (?, ?, ?)").bind(stale.orderHash, fresh.orderHash, staleInactive.orderHash).all();
    expect(Object.fromEntries(statuses.results.map((r) => [r.order_hash, r.status]))).toEqual({
      [stale.orderHash]: "expired",
      [fresh.orderHash]: "active",
      [staleInactive.orderHash]: "expired",
    });
    const best = await env.DB.prepare("select best_order_hash from assets where id = ?").bind(asset.id).first();
    expect(best).toEqual({ best_order_hash: fresh.orderHash });
    const keys = await env.DB.prepare("select key from idempotency_keys where project_id = ?").bind(project.id).all();
    expect(keys.results.map((r) => r.key)).toEqual(["recent"]);
  });
});
