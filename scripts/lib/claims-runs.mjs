// The two timed runs of the claims benchmark and their read-back. Both are measured the same
// way: requests at a fixed concurrency, then a poll (same interval) until the last transaction
// is confirmed; figures come from the request results, the API and the chain.
import { freshRecipients, prepareRawBaseline, rawSender, transactionCount, verifyOnChain } from "./bench-chain.mjs";
import { claimRequest, claimSender, readTransactions, waitForNoPending } from "./bench-service.mjs";
import { percentile, runConcurrent, waitUntil } from "./load.mjs";
import { cpuDelta } from "./proc-cpu.mjs";

/** "3× 503 chain_unavailable" lines (Object.groupBy needs Node 21). */
export function countBy(items, key) {
  const counts = new Map();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return [...counts].map(([k, n]) => `${n}× ${k}`);
}

/** Accepted/s, confirmed/s and latency of one run, from its request results and last-confirmation time. */
function summarize(load, lastConfirmedAt, confirmed) {
  const accepted = load.results.filter((r) => r.ok).length;
  const latencies = load.results.map((r) => r.latencyMs);
  const requestSeconds = (load.endedAt - load.startedAt) / 1000;
  const toLastConfirmation = lastConfirmedAt === null ? null : (lastConfirmedAt - load.startedAt) / 1000;
  return {
    accepted,
    failed: load.results.length - accepted,
    failures: countBy(load.results.filter((r) => !r.ok), (r) => `${r.status} ${r.error ?? ""}`.trim()),
    requestSeconds,
    toLastConfirmation,
    acceptedPerSecond: accepted / requestSeconds,
    confirmedPerSecond: toLastConfirmation ? confirmed / toLastConfirmation : 0,
    confirmed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

/**
 * N claims through the service, then a wait until none is pending, then the read-back: each
 * accepted claim's transaction from the API, its hash, nonce and token from the chain.
 * onPhase(name) marks the phases for a profiler.
 */
export async function serviceRun({ service, api, project, contract, count, concurrency, sampleCpu, pollMs, timeoutMs, label = "service", tag = label, onPhase = () => {} }) {
  const recipients = freshRecipients(tag, count);
  const nonceBefore = await transactionCount(service.anvil.url, project.walletAddress);
  const cpu = [sampleCpu()];
  onPhase("requests");
  const load = await runConcurrent({ count, concurrency, send: claimSender(api, contract, recipients), label });
  cpu.push(sampleCpu());
  onPhase("confirmations");
  console.log(`  waiting until no transaction is pending…`);
  const lastConfirmedAt = await waitForNoPending(api, { intervalMs: pollMs, timeoutMs });
  cpu.push(sampleCpu());
  onPhase("verify");

  const accepted = load.results.filter((r) => r.ok);
  const txs = await readTransactions(api, accepted.map((r) => r.transactionId), concurrency);
  const apiConfirmed = txs.filter((t) => t.status === "confirmed").length;
  const chain = await verifyOnChain({
    rpcUrl: service.anvil.url,
    wallet: project.walletAddress,
    contract,
    nonceBefore,
    claims: accepted.map((r, k) => ({ recipient: r.recipient, tokenId: r.tokenId, hash: txs[k].transactionHash })),
  });
  return {
    ...summarize(load, lastConfirmedAt, apiConfirmed),
    /** One accepted claim's request and 201 body, which the ceiling run answers with. */
    example: accepted.length ? { request: claimRequest(contract, accepted[0].recipient), response: accepted[0].body } : null,
    chain,
    apiNotConfirmed: accepted.length - apiConfirmed,
    statuses: countBy(txs, (t) => t.status),
    cpu: { requests: cpuDelta(cpu[0], cpu[1]), confirmations: cpuDelta(cpu[1], cpu[2]) },
  };
}

/** The raw wallet: pre-signed mintTo sent straight to anvil, confirmed when its nonce reaches n+N. */
export async function rawRun({ chain, count, concurrency, sampleCpu, pollMs, timeoutMs, gasBufferPercent }) {
  const recipients = freshRecipients("raw", count);
  const prep = await prepareRawBaseline({ rpcUrl: chain.anvil.url, factoryAddress: chain.contracts.dropFactoryAddress, recipients, gasBufferPercent });
  console.log(`  drop ${prep.dropAddress}, ${count} transactions signed (nonces ${prep.nonce}..${prep.nonce + count - 1}, gas limit ${prep.gas} each)`);
  const cpu = [sampleCpu()];
  const load = await runConcurrent({ count, concurrency, send: rawSender(chain.anvil.url, prep.signed), label: "raw" });
  cpu.push(sampleCpu());
  console.log(`  waiting until the wallet's nonce reaches ${prep.nonce + count}…`);
  let latest = prep.nonce;
  const lastConfirmedAt = await waitUntil(async () => (latest = await transactionCount(chain.anvil.url, prep.address)) >= prep.nonce + count, { intervalMs: pollMs, timeoutMs });
  cpu.push(sampleCpu());

  const verified = await verifyOnChain({
    rpcUrl: chain.anvil.url,
    wallet: prep.address,
    contract: prep.dropAddress,
    nonceBefore: prep.nonce,
    claims: load.results.filter((r) => r.ok).map((r) => ({ recipient: recipients[r.i], tokenId: prep.firstTokenId + r.i, hash: prep.hashes[r.i] })),
  });
  return { ...summarize(load, lastConfirmedAt, Math.min(count, latest - prep.nonce)), chain: verified, cpu: { requests: cpuDelta(cpu[0], cpu[1]), confirmations: cpuDelta(cpu[1], cpu[2]) } };
}

/** Claims one at a time: the latency of a claim with nothing else in flight. */
export async function serialProbe({ api, contract, count, tag, pollMs, timeoutMs }) {
  const load = await runConcurrent({ count, concurrency: 1, send: claimSender(api, contract, freshRecipients(tag, count)), label: `${tag} C=1`, log: () => {} });
  await waitForNoPending(api, { intervalMs: pollMs, timeoutMs });
  const latencies = load.results.map((r) => r.latencyMs);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), failed: load.results.filter((r) => !r.ok).length };
}
