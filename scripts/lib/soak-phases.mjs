// The soak's phases after the stack is up: a status line for progress (requests, API pending,
// the wallet's pool, the proxy's faults, workerd's open files), the wait until everything has
// settled, and the read-back of every accepted claim's transaction (API first, D1 where the API
// cannot answer: the same rows, read from the run's local state).
import { performance } from "node:perf_hooks";
import { walletNonces } from "./soak-chain.mjs";
import { d1Transactions, workerdFiles } from "./soak-evidence.mjs";
import { pendingTotal, readAll } from "./soak-service.mjs";

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Proxy stats accumulated since `before` (a copy of the stats at that time). */
export function statsSince(before, now) {
  const delta = (a = {}, b = {}) => Object.fromEntries(Object.keys(b).map((k) => [k, b[k] - (a[k] ?? 0)]).filter(([, n]) => n > 0));
  return {
    calls: now.calls - before.calls,
    failed: now.failed - before.failed,
    delayed: now.delayed - before.delayed,
    byMethod: delta(before.byMethod, now.byMethod),
    failedByMethod: delta(before.failedByMethod, now.failedByMethod),
    delayedByMethod: delta(before.delayedByMethod, now.delayedByMethod),
  };
}

/** The open-files baseline is the highest sample until this share of the requests is answered: full load, before the first anvil-side fault. */
export const FILES_START_UNTIL = 0.1;

/**
 * workerd's open files over the run, sampled every `everyMs` by a timer of its own (a leak can
 * rise and wedge the service between two status lines): `idle` before the first claim, `start`
 * the highest sample until FILES_START_UNTIL of the requests are answered, `peak` over the
 * run, `end` when it is over. The baseline is taken under load because every live Durable
 * Object holds three files: the idle figure says nothing about what the same load needs, and
 * one early sample would catch the backlog still building.
 */
export function openFilesWatch({ wranglerPid, answeredShare, everyMs = 2000 }) {
  const figures = { idle: null, start: null, peak: null, end: null, limit: null, series: [] };
  const began = performance.now();
  const sample = () => {
    const now = workerdFiles(wranglerPid);
    if (!now) return null;
    figures.limit ??= now.limit;
    figures.series.push({ t: Math.round((performance.now() - began) / 100) / 10, ...now, limit: undefined });
    if (!figures.peak || now.fds > figures.peak.fds) figures.peak = now;
    const share = answeredShare();
    if (share > 0 && share <= FILES_START_UNTIL && (!figures.start || now.fds > figures.start.fds)) figures.start = now;
    return now;
  };
  figures.idle = sample();
  figures.peak = figures.idle;
  const timer = setInterval(sample, everyMs);
  timer.unref();
  return {
    figures,
    sample,
    stop: () => {
      clearInterval(timer);
      figures.end = sample();
      return figures;
    },
  };
}

/**
 * Fails the run loudly when the service stops answering, instead of waiting forever on requests
 * that will never return: every answer the client gets is noted; after `quietS` seconds without
 * one it asks /health itself, and after `deadS` seconds without any answer it calls onDead with
 * the silence's length (a minute at most from the last answer to the exit).
 */
export function watchdog({ baseUrl, onDead, quietS = 15, deadS = 45, everyMs = 5000 }) {
  let lastAnswer = performance.now();
  let probing = false;
  const noteAnswer = () => {
    lastAnswer = performance.now();
  };
  const timer = setInterval(async () => {
    const silentS = (performance.now() - lastAnswer) / 1000;
    if (silentS >= deadS) {
      clearInterval(timer);
      onDead(silentS);
      return;
    }
    if (silentS < quietS || probing) return;
    probing = true;
    try {
      const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(10_000) });
      await response.arrayBuffer();
      noteAnswer();
    } catch {
      // no answer: the silence goes on
    } finally {
      probing = false;
    }
  }, everyMs);
  timer.unref();
  return { noteAnswer, stop: () => clearInterval(timer) };
}

/**
 * Progress of a run: counters the request sender updates, status() for a one-line summary with
 * the latest open-files sample.
 */
export function monitor({ client, anvilUrl, wallet, proxy, files, total }) {
  const counters = { finished: 0, accepted: 0, startedAt: performance.now() };
  const proxyBefore = JSON.parse(JSON.stringify(proxy.stats));
  const status = async () => {
    const t = ((performance.now() - counters.startedAt) / 1000).toFixed(0);
    const pending = await pendingTotal(client).catch((e) => `? (${e.message.slice(0, 40)})`);
    const nonces = await walletNonces(anvilUrl, wallet);
    const open = files.sample();
    const { calls, failed, delayed } = statsSince(proxyBefore, proxy.stats);
    const pool = `${nonces.pooled} in the pool${nonces.queued ? ` (${nonces.queued} queued behind a gap at nonce ${nonces.latest})` : ""}`;
    return `  [soak ${t} s] ${counters.finished}/${total} answered, ${counters.accepted} accepted, ${counters.finished - counters.accepted} rejected; API pending ${pending}; wallet nonce ${nonces.latest} mined, ${pool}; proxy ${calls} calls, ${failed} failed, ${delayed} delayed${open ? `; workerd ${open.fds} open files (${open.sockets} sockets, ${open.storage} storage)` : ""}`;
  };
  return { counters, status, proxyStats: () => statsSince(proxyBefore, proxy.stats) };
}

/** Prints status() every `everyMs` until stop() is called; stop() resolves once the loop has ended. */
export function ticker(status, everyMs = 15_000) {
  let on = true;
  const loop = (async () => {
    while (on) {
      await sleep(everyMs);
      // A status read that fails (the chain or service going away) is a line, not a crash.
      if (on) console.log(await status().catch((error) => `  [soak] status unavailable: ${error.cause?.code ?? error.message}`));
    }
  })();
  return () => {
    on = false;
    return loop;
  };
}

/**
 * Waits until the API shows nothing pending and the wallet has nothing in anvil's pool, for at
 * most timeoutS, or until gaveUp() (wrangler dev gone). Returns the time it settled, or null.
 */
export async function waitToSettle({ client, anvilUrl, wallet, timeoutS, mon, gaveUp }) {
  const deadline = performance.now() + timeoutS * 1000;
  let lastLine = 0;
  for (;;) {
    const began = performance.now();
    const [pending, nonces] = await Promise.all([pendingTotal(client).catch(() => null), walletNonces(anvilUrl, wallet)]);
    const took = performance.now() - began;
    // A slow status read is itself a finding (the service starved or stuck): say so.
    if (took > 10_000) console.log(`  (status read took ${(took / 1000).toFixed(1)} s; API pending ${pending ?? "unknown: the read failed"})`);
    if (pending === 0 && nonces.pooled === 0) return performance.now();
    if (performance.now() > deadline || gaveUp()) return null;
    if (performance.now() - lastLine > 15_000) {
      lastLine = performance.now();
      console.log(await mon.status());
    }
    await sleep(2000);
  }
}

/**
 * Every accepted claim's transaction: from the API when it answers (it is what a client sees),
 * else the same D1 row marked `from: "d1"`. Also returns all D1 rows (they carry the nonces).
 */
export async function readBack({ client, baseUrl, persistDir, accepted, serviceGone }) {
  const d1Rows = await d1Transactions(persistDir);
  const healthy = !serviceGone && (await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(20_000) }).then((r) => r.ok).catch(() => false));
  const apiList = healthy ? await readAll(client, accepted.map((r) => r.transactionId)) : [];
  const d1ById = new Map((Array.isArray(d1Rows) ? d1Rows : []).map((r) => [r.id, { id: r.id, status: r.status, transactionHash: r.transaction_hash, errorMessage: r.error_message, from: "d1" }]));
  let fromD1 = 0;
  const statuses = accepted.map((r, k) => {
    const api = apiList[k];
    if (api && typeof api.status === "string" && !api.status.startsWith("http")) return api;
    fromD1 += 1;
    return d1ById.get(r.transactionId) ?? api ?? { id: r.transactionId, status: "unknown", transactionHash: null };
  });
  return { statuses, d1Rows, fromD1 };
}
