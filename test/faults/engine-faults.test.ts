// The transaction engine against a real anvil behind a misbehaving proxy: every scenario must
// end with the transaction confirmed (or, past its deadline, failed with its nonce filled),
// nothing lost, nothing sent twice. A transaction the chain reverts after its simulation passed
// ends `reverted`. (Mining is paused here, so these scenarios live in one file: files run in
// parallel.)
import { abortAllDurableObjects, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { encodeFunctionData, toHex, type Address, type Hex } from "viem";
import { dropErc721Abi } from "../../src/chain/artifacts/drop-erc721";
import { watcherStub } from "../../src/services/durable-object-stubs";
import type { FaultRule, RpcProxy } from "../../scripts/lib/rpc-proxy.mjs";
import type { WatchedTransaction } from "../../src/services/engine/types";
import { chainClient, dropReadAbi, ownerOf, rpc, waitForTransaction } from "../helpers/chain";
import { until } from "../helpers/engine";
import { runIndex } from "../helpers/indexer";
import { claimConfirmed, deployConfirmedDrop, setApprovalForAll } from "../helpers/drops";
import { call } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { listingComponents, viemSignOrder } from "../helpers/seaport";
import { seaportAddress } from "../helpers/seaport-basic-order";
import { freshWallet } from "../helpers/wallets";

let project: TestProject;
let contract: string;
const recipient = "0x976EA74026E726554dB657fA54763abd0C3a0aa9";

type ProxyStats = RpcProxy["stats"];

async function setFaults(rules: FaultRule[]) {
  const response = await fetch(`${env.PROXY_URL}/__faults`, { method: "POST", body: JSON.stringify(rules) });
  return (await response.json()) as { stats: ProxyStats };
}

/** How often the proxy has injected `rule`'s fault so far. */
function injected(stats: ProxyStats, rule: FaultRule): number {
  const counters: Record<FaultRule["action"], [number, Record<string, number>]> = {
    fail: [stats.failed, stats.failedByMethod],
    "lose-response": [stats.lost, stats.lostByMethod],
    delay: [stats.delayed, stats.delayedByMethod],
    "answer-error": [stats.erred, stats.erredByMethod],
    "answer-null": [stats.nulled, stats.nulledByMethod],
  };
  const [total, byMethod] = counters[rule.action];
  return rule.method === "*" ? total : (byMethod[rule.method] ?? 0);
}
const proxyStats = async () => (await setFaults([])).stats;
const walletNonce = () => chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "latest" });
const totalMinted = () => chainClient().readContract({ address: contract as Address, abi: dropReadAbi, functionName: "totalMinted" });
const pauseMining = () => rpc("evm_setIntervalMining", [0]);
const resumeMining = () => rpc("evm_setIntervalMining", [1]);
const GWEI = 1_000_000_000n;

const watchedRecord = (id: string) =>
  runInDurableObject(watcherStub(env, id), async (_instance, state) => (await state.storage.get<WatchedTransaction>("tx"))!);
const changeWatchedRecord = (id: string, change: (record: WatchedTransaction) => WatchedTransaction) =>
  runInDurableObject(watcherStub(env, id), async (_instance, state) => {
    await state.storage.put("tx", change((await state.storage.get<WatchedTransaction>("tx"))!));
  });
/** Changes the record until the change holds: a poll under way may write the record back meanwhile. */
const holdWatchedRecord = async (id: string, holds: (record: WatchedTransaction) => boolean, change: (record: WatchedTransaction) => WatchedTransaction) => {
  const record = await until(
    async () => {
      await changeWatchedRecord(id, change);
      await new Promise((resolve) => setTimeout(resolve, 600));
      return watchedRecord(id);
    },
    holds,
  );
  expect(holds(record), `the change to ${id}'s record did not hold`).toBe(true);
};
/** Ages the record past the deadline (ENGINE_FAIL_AFTER_SECONDS) instead of waiting 15 min: its watcher then fills the nonce. */
const ageWatchedRecord = (id: string) =>
  holdWatchedRecord(
    id,
    (record) => record.state === "filling" || Date.now() - record.createdAt > 3_000_000,
    (record) => (record.state === "filling" ? record : { ...record, createdAt: record.createdAt - 3_600_000 }),
  );
/** ENGINE_MAX_BUMPS: a record with this many re-prices gets no more. */
const maxBumps = Number(env.ENGINE_MAX_BUMPS);

async function claimOne() {
  const claimed = await call("/v1/project-wallet/drops/claim", {
    secretKey: project.secretKey,
    body: { contractAddress: contract, recipientAddress: recipient, quantity: 1 },
  });
  expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
  return { tx: claimed.body.transactions[0] as { id: string; transactionHash: string }, tokenId: BigInt(claimed.body.assets[0].tokenId) };
}

/**
 * Runs a claim through a fault and checks it ends confirmed, with one nonce and one token used.
 * The first rule is the fault under test: it must actually have been injected.
 */
async function survivesFault(rules: FaultRule[]) {
  const [nonceBefore, mintedBefore] = [await walletNonce(), await totalMinted()];
  const [primary] = rules;
  const injectedBefore = primary ? injected(await proxyStats(), primary) : 0;
  await setFaults(rules);
  const { tx, tokenId } = await claimOne();
  const settled = await waitForTransaction(tx.id, project.apiKey);
  const { stats } = await setFaults([]);
  if (primary) expect(injected(stats, primary), `${primary.action} ${primary.method} never injected`).toBeGreaterThan(injectedBefore);
  expect(settled.status).toBe("confirmed");
  expect((await ownerOf(contract, tokenId)).toLowerCase()).toBe(recipient.toLowerCase());
  expect(await walletNonce()).toBe(nonceBefore + 1);
  expect(await totalMinted()).toBe(mintedBefore + 1n);
  return settled;
}

beforeAll(async () => {
  project = await createTestProject("Faults");
  contract = (await deployConfirmedDrop(project, { name: "Fault drop", metadataStorageType: "self-hosted", baseUri: "https://example.com/t/" })).contractAddress;
});

afterEach(async () => {
  await setFaults([]);
  await resumeMining();
  // Tests raise the base fee up to 1000-fold; left there, the wallet soon cannot pay the next ones.
  await rpc("anvil_setNextBlockBaseFeePerGas", [toHex(GWEI)]);
  await rpc("evm_mine", []);
});

describe("faults between the engine and the node", () => {
  it("rebroadcasts a transaction whose broadcast never reached the node", async () => {
    await survivesFault([{ method: "eth_sendRawTransaction", action: "fail", times: 1 }]);
  });

  it("does not send twice when the node took the broadcast but the answer was lost", async () => {
    await survivesFault([{ method: "eth_sendRawTransaction", action: "lose-response", times: 2 }]);
  });

  it("does not send twice when the first broadcast is slow", async () => {
    // The watcher polls during the 2.5 s but leaves the bytes to the sequencer, whose request is
    // still open (decision 100; before it, the watcher's copy got in first and the node answered
    // the sequencer's broadcast "already known").
    await survivesFault([{ method: "eth_sendRawTransaction", action: "delay", delayMs: 2_500, times: 1 }]);
  });

  it("keeps a transaction the node took when a gateway answers the broadcast with an error", async () => {
    // Not "nonce too low", "underpriced" or a 5xx: read alone, a definite refusal. Releasing the
    // nonce would leave the sent bytes unrecorded and hand the nonce to the next request.
    await survivesFault([{ method: "eth_sendRawTransaction", action: "answer-error", error: { code: -32000, message: "upstream request timeout" }, times: 1 }]);
    await survivesFault([]);
  });

  it("does not re-sign on 'already known' from a node behind a load balancer that another node answered for", async () => {
    // The broadcast reached the pool; the answer says "already known" (viem: nonce too low) and
    // the hash lookup lands on a replica that has not seen the bytes yet. The nonce is not mined
    // (mining is paused), so it cannot have gone to another transaction.
    const [nonceBefore, mintedBefore] = [await walletNonce(), await totalMinted()];
    const before = await proxyStats();
    await pauseMining();
    await setFaults([
      { method: "eth_sendRawTransaction", action: "answer-error", error: { code: -32000, message: "already known" }, times: 1 },
      // The lookup right after that answer: the sequencer's (the watcher's first poll is 200 ms on).
      { method: "eth_getTransactionByHash", action: "answer-null", times: 1, afterMethod: "eth_sendRawTransaction" },
    ]);
    const { tx, tokenId } = await claimOne();
    const { stats } = await setFaults([]);
    expect([stats.erred - before.erred, stats.nulled - before.nulled]).toEqual([1, 1]);
    await resumeMining();
    expect((await waitForTransaction(tx.id, project.apiKey)).status).toBe("confirmed");
    expect((await ownerOf(contract, tokenId)).toLowerCase()).toBe(recipient.toLowerCase());
    expect(await walletNonce()).toBe(nonceBefore + 1);
    expect(await totalMinted()).toBe(mintedBefore + 1n);
  });

  it("keeps polling through failing and slow receipt calls", async () => {
    await survivesFault([
      { method: "eth_getTransactionReceipt", action: "fail", times: 6 },
      { method: "eth_getTransactionReceipt", action: "delay", maxDelayMs: 1500, times: 6 },
      { method: "eth_blockNumber", action: "fail", times: 2 },
    ]);
  });

  it("retries reads that got no answer before the broadcast instead of answering 502", async () => {
    // Two failures in a row per read: the third attempt answers.
    await survivesFault([
      { method: "eth_estimateGas", action: "fail", times: 2 },
      { method: "eth_getBlockByNumber", action: "fail", times: 2 },
    ]);
  });

  it("retries a gas estimate the provider answered as overloaded, and answers 502, not a revert's 422, while it stays so", async () => {
    // A rate limit or an overload is not the node's view of the transaction.
    await survivesFault([{ method: "eth_estimateGas", action: "answer-error", error: { code: -32002, message: "resource unavailable" }, times: 1 }]);
    await setFaults([{ method: "eth_estimateGas", action: "answer-error", error: { code: 429, message: "Too Many Requests" }, times: 3 }]);
    const claimed = await call("/v1/project-wallet/drops/claim", {
      secretKey: project.secretKey,
      body: { contractAddress: contract, recipientAddress: recipient, quantity: 1 },
    });
    const { stats } = await setFaults([]);
    expect([claimed.status, claimed.body.error?.code]).toEqual([502, "chain_unavailable"]);
    expect(stats.erredByMethod.eth_estimateGas).toBeGreaterThanOrEqual(4);
  });

  it("answers 502 chain_unavailable, takes no nonce and keeps no record when the node stays unreachable", async () => {
    const [nonceBefore, mintedBefore] = [await walletNonce(), await totalMinted()];
    const transactionsRecorded = async () => (await call("/v1/transactions", { apiKey: project.apiKey })).body.pagination.total as number;
    const [recordedBefore, failedEstimatesBefore] = [await transactionsRecorded(), (await proxyStats()).failedByMethod.eth_estimateGas ?? 0];
    await setFaults([{ method: "eth_estimateGas", action: "fail" }]);
    const claimed = await call("/v1/project-wallet/drops/claim", {
      secretKey: project.secretKey,
      body: { contractAddress: contract, recipientAddress: recipient, quantity: 1 },
    });
    const failedEstimates = ((await proxyStats()).failedByMethod.eth_estimateGas ?? 0) - failedEstimatesBefore;
    await setFaults([]);
    expect(claimed.status).toBe(502);
    expect(claimed.body.error.code).toBe("chain_unavailable");
    expect(failedEstimates).toBe(3);
    expect(await transactionsRecorded()).toBe(recordedBefore);
    // The next claim uses the very next nonce: the failed one left no gap.
    await survivesFault([]);
    expect(await walletNonce()).toBe(nonceBefore + 1);
    expect(await totalMinted()).toBe(mintedBefore + 1n);
  });

  it("answers 502, not a client error, when a token read gets no answer", async () => {
    // Three failures: every attempt of the read (it retries twice) goes unanswered.
    await setFaults([{ method: "eth_call", action: "fail", times: 3 }]);
    const transfer = await call("/v1/project-wallet/transfer", {
      secretKey: project.secretKey,
      body: { type: "erc20", tokenAddress: contract, recipientAddress: recipient, amount: "1" },
    });
    expect([transfer.status, transfer.body.error?.code]).toEqual([502, "chain_unavailable"]);
    await setFaults([{ method: "eth_call", action: "fail", times: 3 }]);
    const deploy = await call("/v1/project-wallet/drops/deploy", {
      secretKey: project.secretKey,
      body: { name: "Token priced", metadataStorageType: "self-hosted", baseUri: "https://example.com/t/", currencyAddress: contract, unitPrice: 1 },
    });
    expect([deploy.status, deploy.body.error?.code]).toEqual([502, "chain_unavailable"]);
    // With the node answering, an address without a contract is the client's mistake.
    await setFaults([]);
    const notAToken = await call("/v1/project-wallet/transfer", {
      secretKey: project.secretKey,
      body: { type: "erc20", tokenAddress: recipient, recipientAddress: recipient, amount: "1" },
    });
    expect([notAToken.status, notAToken.body.error?.details?.[0]?.path]).toEqual([400, "body.tokenAddress"]);
  });

  it("survives random delays on every call", async () => {
    await survivesFault([{ method: "*", action: "delay", maxDelayMs: 400 }]);
  });
});

describe("a claim's metadata when the indexer applies its mint first", () => {
  it("gives the tokens the request's metadata once the transaction settles", async () => {
    // The watcher cannot settle yet (no receipt reads), and the row shows another hash of the
    // transaction, as after a fee bump whose original was mined: the indexer does not hold the
    // original's logs back and applies the mint with the drop's default fields.
    await setFaults([{ method: "eth_getTransactionReceipt", action: "fail" }]);
    const claimed = await call("/v1/project-wallet/drops/claim", {
      secretKey: project.secretKey,
      body: { contractAddress: contract, recipientAddress: recipient, quantity: 1, overrideMetadata: [{ name: "Requested name", description: "from the request" }] },
    });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
    const [tx, tokenId] = [claimed.body.transactions[0] as { id: string; transactionHash: Hex }, claimed.body.assets[0].tokenId as string];
    await env.DB.prepare("update transactions set transaction_hash = ? where id = ?").bind(`0x${"cd".repeat(32)}`, tx.id).run();
    await chainClient().waitForTransactionReceipt({ hash: tx.transactionHash, pollingInterval: 100 });
    await runIndex();
    const asset = () => call(`/v1/assets/1868/${contract}/${tokenId}`, { apiKey: project.apiKey });
    const applied = await asset();
    // Applied with the drop's defaults (a self-hosted drop has no default name).
    expect([applied.status, applied.body.name]).toEqual([200, null]);

    await setFaults([]);
    expect((await waitForTransaction(tx.id, project.apiKey)).status).toBe("confirmed");
    expect((await asset()).body).toMatchObject({ name: "Requested name", description: "from the request" });
    const found = await call(`/v1/assets/explore?search=${encodeURIComponent("Requested name")}&contractAddress=${contract}`, { apiKey: project.apiKey });
    expect(found.body.data.map((a: { tokenId: string }) => a.tokenId)).toEqual([tokenId]);
  });
});

describe("the node losing or stalling transactions", () => {
  it("rebroadcasts the same bytes after the node drops the transaction", async () => {
    const nonceBefore = await walletNonce();
    await pauseMining();
    const { tx } = await claimOne();
    await rpc("anvil_dropTransaction", [tx.transactionHash]);
    expect(await rpc("eth_getTransactionByHash", [tx.transactionHash])).toBeNull();
    // Let the watcher notice and rebroadcast before blocks resume.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await resumeMining();
    const settled = await waitForTransaction(tx.id, project.apiKey);
    expect(settled).toMatchObject({ status: "confirmed", transactionHash: tx.transactionHash });
    expect(await walletNonce()).toBe(nonceBefore + 1);
  });

  it("replaces a transaction stuck under a raised base fee with higher fees, same record", async () => {
    const nonceBefore = await walletNonce();
    await pauseMining();
    const { tx } = await claimOne();
    const fees = (sent: { maxFeePerGas: string; maxPriorityFeePerGas: string }) => [BigInt(sent.maxFeePerGas), BigInt(sent.maxPriorityFeePerGas)];
    const [stuck, stuckTip] = fees(await rpc("eth_getTransactionByHash", [tx.transactionHash]));
    await rpc("anvil_setNextBlockBaseFeePerGas", [`0x${(stuck! * 50n).toString(16)}`]);
    await resumeMining();
    const settled = await waitForTransaction(tx.id, project.apiKey);
    expect(settled.status).toBe("confirmed");
    expect(settled.id).toBe(tx.id);
    expect(settled.transactionHash).not.toBe(tx.transactionHash);
    expect(await rpc("eth_getTransactionReceipt", [tx.transactionHash])).toBeNull();
    expect(BigInt(settled.gasPrice)).toBeGreaterThan(stuck!);
    // A replacement raises both fee fields by at least 12.5 % (DESIGN §5), the tip included, which
    // the raised base fee alone would not have moved.
    const [replacedFee, replacedTip] = fees(await rpc("eth_getTransactionByHash", [settled.transactionHash]));
    expect(replacedFee! * 1000n).toBeGreaterThanOrEqual(stuck! * 1125n);
    expect(replacedTip! * 1000n).toBeGreaterThanOrEqual(stuckTip! * 1125n);
    expect(await walletNonce()).toBe(nonceBefore + 1);
  });

  it("accepts a claim priced under a base fee that jumped after its quote, and re-prices it", async () => {
    const nonceBefore = await walletNonce();
    await pauseMining();
    const { baseFeePerGas } = await chainClient().getBlock({ blockTag: "latest" });
    // Far above the 2x-base-fee-plus-tip cap quoted from the latest block.
    await rpc("anvil_setNextBlockBaseFeePerGas", [`0x${((baseFeePerGas ?? 1n) * 1000n + 10n ** 12n).toString(16)}`]);
    const { tx, tokenId } = await claimOne();
    expect(await rpc("eth_getTransactionByHash", [tx.transactionHash])).toBeNull();
    await resumeMining();
    const settled = await waitForTransaction(tx.id, project.apiKey);
    expect(settled.status).toBe("confirmed");
    expect(settled.transactionHash).not.toBe(tx.transactionHash);
    expect((await ownerOf(contract, tokenId)).toLowerCase()).toBe(recipient.toLowerCase());
    expect(await walletNonce()).toBe(nonceBefore + 1);
  });

  it("keeps a claim whose nonce a transaction sent outside the service holds in the pool, and gives the next claim the nonce after it", async () => {
    await pauseMining();
    // A block the interval miner had already scheduled may still come: let it, so the outside
    // transaction below stays pooled (mined, it would be "nonce too low", another path).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const [nonceBefore, mintedBefore] = [await walletNonce(), await totalMinted()];
    // The wallet's key used elsewhere: a pooled transaction at the service's next nonce, priced so
    // far above the service's quote that the node refuses the claim as an underpriced replacement.
    const wallet = project.walletAddress;
    const { baseFeePerGas } = await chainClient().getBlock({ blockTag: "pending" });
    const tip = 100n * GWEI;
    await rpc("anvil_impersonateAccount", [wallet]);
    const outside = await rpc<Hex>("eth_sendTransaction", [
      { from: wallet, to: wallet, value: "0x0", nonce: toHex(nonceBefore), maxFeePerGas: toHex(4n * (baseFeePerGas ?? 0n) + tip), maxPriorityFeePerGas: toHex(tip) },
    ]);
    await rpc("anvil_stopImpersonatingAccount", [wallet]);
    // Accepted and watched, not a 502: re-signing it under another nonce could send it twice.
    const { tx } = await claimOne();
    expect(await rpc("eth_getTransactionReceipt", [outside]), "the outside transaction was still pooled").toBeNull();
    expect((await watchedRecord(tx.id)).nonce, "the claim was signed with the outside transaction's nonce").toBe(nonceBefore);
    await resumeMining();
    const settled = await waitForTransaction(tx.id, project.apiKey);
    expect(settled).toMatchObject({ status: "failed", errorMessage: expect.stringContaining("another transaction") });
    expect((await chainClient().getTransaction({ hash: outside })).nonce).toBe(nonceBefore);
    expect(await walletNonce()).toBe(nonceBefore + 1);
    expect(await totalMinted()).toBe(mintedBefore);
    // The nonce was not released: the next claim takes the one after it instead of meeting the same refusal.
    await survivesFault([]);
  });

  it("does not re-price a transaction waiting behind an earlier nonce that is not mined", async () => {
    const nonceBefore = await walletNonce();
    await pauseMining();
    const first = await claimOne();
    // The first is priced out by a base-fee jump and, its re-pricing budget spent, stays so; the
    // second is priced after the jump, so only the first keeps it from being mined.
    await holdWatchedRecord(first.tx.id, (record) => record.bumps === maxBumps, (record) => ({ ...record, bumps: maxBumps }));
    const firstCap = BigInt((await rpc<{ maxFeePerGas: Hex }>("eth_getTransactionByHash", [first.tx.transactionHash])).maxFeePerGas);
    await rpc("anvil_setNextBlockBaseFeePerGas", [toHex(firstCap * 50n)]);
    await rpc("evm_mine", []);
    // Past the sequencer's fee quote cache (1 s), so the second is quoted on the jumped base fee.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const second = await claimOne();
    const secondCap = BigInt((await rpc<{ maxFeePerGas: Hex }>("eth_getTransactionByHash", [second.tx.transactionHash])).maxFeePerGas);
    expect(secondCap).toBeGreaterThan(firstCap * 50n);
    await resumeMining();
    // Well past ENGINE_BUMP_AFTER_BLOCKS (2) blocks with both unmined and polled.
    const head = await chainClient().getBlockNumber();
    await until(() => chainClient().getBlockNumber(), (block) => block >= head + 5n);
    expect(await walletNonce()).toBe(nonceBefore);
    expect((await watchedRecord(second.tx.id)).hashes).toHaveLength(1);

    const { baseFeePerGas } = await chainClient().getBlock({ blockTag: "latest" });
    await rpc("anvil_setNextBlockBaseFeePerGas", [toHex(firstCap / 4n)]);
    const settled = await Promise.all([first, second].map(({ tx }) => waitForTransaction(tx.id, project.apiKey)));
    expect(baseFeePerGas!, "the first stayed priced out").toBeGreaterThan(firstCap);
    expect(settled.map(({ status, transactionHash }) => [status, transactionHash])).toEqual([
      ["confirmed", first.tx.transactionHash],
      ["confirmed", second.tx.transactionHash],
    ]);
    expect(await walletNonce()).toBe(nonceBefore + 2);
  });

  it("re-prices a filler past its re-pricing budget once the base fee rises past its fee cap", async () => {
    const [nonceBefore, mintedBefore] = [await walletNonce(), await totalMinted()];
    await pauseMining();
    const { tx } = await claimOne();
    await ageWatchedRecord(tx.id);
    const filled = await until(() => watchedRecord(tx.id), (record) => record.state === "filling");
    expect(filled.state, "the watcher filled the overdue transaction's nonce").toBe("filling");
    // As if the filler had been re-priced ENGINE_MAX_BUMPS times already.
    await holdWatchedRecord(tx.id, (record) => record.bumps === maxBumps, (record) => ({ ...record, bumps: maxBumps }));
    const firstFiller = filled.hashes.at(-1)!;
    await rpc("anvil_setNextBlockBaseFeePerGas", [toHex(BigInt(firstFiller.maxFeePerGas) * 50n)]);
    await resumeMining();

    const settled = await waitForTransaction(tx.id, project.apiKey);
    expect(settled.status).toBe("failed");
    const { hashes } = await watchedRecord(tx.id);
    const receipts = await Promise.all(hashes.map((sent) => rpc("eth_getTransactionReceipt", [sent.hash])));
    const mined = hashes.filter((_sent, i) => receipts[i] !== null);
    expect(mined).toHaveLength(1);
    expect(mined[0]!.purpose).toBe("fill");
    expect(mined[0]!.hash).not.toBe(firstFiller.hash);
    expect(BigInt(mined[0]!.maxFeePerGas)).toBeGreaterThan(BigInt(firstFiller.maxFeePerGas));
    expect(await walletNonce()).toBe(nonceBefore + 1);
    expect(await totalMinted()).toBe(mintedBefore);
  });

  it("finishes the job after every Durable Object restarts mid-flight", async () => {
    const nonceBefore = await walletNonce();
    await pauseMining();
    const { tx, tokenId } = await claimOne();
    await abortAllDurableObjects();
    await resumeMining();
    const settled = await waitForTransaction(tx.id, project.apiKey);
    expect(settled.status).toBe("confirmed");
    expect((await ownerOf(contract, tokenId)).toLowerCase()).toBe(recipient.toLowerCase());
    expect(await walletNonce()).toBe(nonceBefore + 1);
    // The restarted sequencer carries on from its stored nonce.
    await survivesFault([]);
  });

  it("marks a transaction failed after its deadline and fills its nonce so later ones are not stuck", async () => {
    const [nonceBefore, mintedBefore] = [await walletNonce(), await totalMinted()];
    await pauseMining();
    const { tx } = await claimOne();
    await ageWatchedRecord(tx.id);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await resumeMining();
    const settled = await waitForTransaction(tx.id, project.apiKey);
    expect(settled.status).toBe("failed");
    expect(settled.errorMessage).toContain("nonce");
    expect(settled.gasUsed).toBeNull();
    expect(await walletNonce()).toBe(nonceBefore + 1);
    // The nonce went to a 0-value self-transfer, not to the claim: nothing was minted.
    expect(await totalMinted()).toBe(mintedBefore);
    expect(await rpc("eth_getTransactionReceipt", [tx.transactionHash])).toBeNull();
    const record = await runInDurableObject(watcherStub(env, tx.id), async (_instance, state) => (await state.storage.get<WatchedTransaction>("tx"))!);
    const filler = record.hashes.at(-1)!;
    expect(filler.purpose).toBe("fill");
    const fillerOnChain = await chainClient().getTransaction({ hash: filler.hash as `0x${string}` });
    const wallet = project.walletAddress.toLowerCase();
    expect({ from: fillerOnChain.from, to: fillerOnChain.to, value: fillerOnChain.value, nonce: fillerOnChain.nonce }).toEqual({ from: wallet, to: wallet, value: 0n, nonce: nonceBefore });
    // The filled nonce does not block what comes next.
    await survivesFault([]);
  });
});

describe("a buy whose order stops being fillable before it is mined", () => {
  it("ends reverted with its gas figures and an error message, and the order is not filled", async () => {
    const [seller, elsewhere] = await Promise.all([freshWallet(), freshWallet()]);
    const [claimedId] = await claimConfirmed(project, { contractAddress: contract, recipientAddress: seller.address });
    const tokenId = BigInt(claimedId!);
    await setApprovalForAll(seller, contract, seaportAddress());
    const parameters = listingComponents(seller.address, contract, tokenId.toString(), 10n ** 15n);
    const signature = await viemSignOrder(seller, parameters, { chainId: 1868, verifyingContract: seaportAddress() });
    const listed = await call("/v1/orders", { apiKey: project.apiKey, body: { signature, parameters, chainId: 1868 } });
    expect(listed.status, JSON.stringify(listed.body)).toBe(201);

    await pauseMining();
    const bought = await call("/v1/project-wallet/orders/buy", { secretKey: project.secretKey, body: { chainId: 1868, orderHashes: [listed.body.orderHash] } });
    const [item] = bought.body[0].result;
    expect(item.type, JSON.stringify(item)).toBe("transaction");
    const buySent = await chainClient().getTransaction({ hash: item.result.transactionHash });
    // Same block, ordered first by its tip: the token is gone when Seaport tries to move it.
    // Signed by hand: a wallet client would simulate it against the pending block, where the buy
    // has already taken the token.
    const moveAway = await rpc<Hex>("eth_sendRawTransaction", [
      await seller.account.signTransaction({
        type: "eip1559",
        chainId: 1868,
        nonce: await chainClient().getTransactionCount({ address: seller.address, blockTag: "pending" }),
        gas: 150_000n,
        to: contract as Address,
        data: encodeFunctionData({ abi: dropErc721Abi, functionName: "transferFrom", args: [seller.address, elsewhere.address, tokenId] }),
        maxPriorityFeePerGas: buySent.maxPriorityFeePerGas! + 100n * GWEI,
        maxFeePerGas: 2n * buySent.maxFeePerGas! + 100n * GWEI,
      }),
    ]);
    await resumeMining();

    const settled = await waitForTransaction(item.result.id, project.apiKey);
    const moved = await chainClient().getTransactionReceipt({ hash: moveAway });
    const buyReceipt = await chainClient().getTransactionReceipt({ hash: settled.transactionHash });
    expect([moved.status, buyReceipt.status, buyReceipt.blockNumber]).toEqual(["success", "reverted", moved.blockNumber]);
    expect(settled).toMatchObject({ status: "reverted", errorMessage: "the transaction reverted on chain", gasUsed: buyReceipt.gasUsed.toString() });
    expect(BigInt(settled.totalGasFee)).toBeGreaterThan(0n);
    expect((await ownerOf(contract, tokenId)).toLowerCase()).toBe(elsewhere.address);
    expect((await call(`/v1/orders/${listed.body.orderHash}`, { apiKey: project.apiKey })).body.status).not.toBe("filled");
  });
});

describe("proxy sanity", () => {
  it("counts the faults it injected", async () => {
    await setFaults([{ method: "eth_chainId", action: "fail", times: 1 }]);
    await fetch(env.PROXY_URL, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }) });
    expect((await proxyStats()).failed).toBeGreaterThan(0);
  });
});
