// npm run bench:soak — N claims through the service while its chain RPC misbehaves, then a
// claim-by-claim read-back: nothing lost, nothing sent twice, no nonce gap, every accepted claim
// confirmed. Starts its own stack like bench:claims (anvil with 1 s blocks, devnet contracts, a
// bundle of src/ under `wrangler dev`, state and secrets in a temp dir), but the Worker reaches
// anvil through scripts/lib/rpc-proxy.mjs, which fails and delays calls; mempool drops and a
// base-fee spike are done on anvil directly (scripts/lib/soak-faults.mjs).
// Prints the figures, writes bench/results/soak.json and the soak section of docs/reliability.md,
// and the run's evidence to .dev/soak/. Exits 1 when a correctness check fails.
// Options: --claims N (CLAIMS, default 5000), --concurrency C (CONCURRENCY, default 64),
// --settle-timeout S (wait for pending transactions after the last request, default 900),
// --fail-probability (0.05), --delay-probability (0.2), --max-delay-ms (2000),
// --secret-keys (8), --api-keys (4), --note "why N is not the default" (into the doc),
// --no-write (print only: for trial runs).
import { execFileSync } from "node:child_process";
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { freshRecipients } from "./lib/bench-chain.mjs";
import { printTable, writeDocSection, writeResults } from "./lib/bench-report.mjs";
import { apiClient, deployBenchDrop } from "./lib/bench-service.mjs";
import { runConcurrent } from "./lib/load.mjs";
import { cpuDelta, cpuSampler } from "./lib/proc-cpu.mjs";
import { startRpcProxy } from "./lib/rpc-proxy.mjs";
import { headBlock, totalMinted, walletNonces } from "./lib/soak-chain.mjs";
import { broadcastRecorder, d1Transactions, formatTimeline, logFacts, timelines, workerdFiles } from "./lib/soak-evidence.mjs";
import { baseFeeSpike, faultSchedule, mempoolDrop, soakRules } from "./lib/soak-faults.mjs";
import { HEADER, docSection, faultLines, soakRows, verdictOf } from "./lib/soak-report.mjs";
import { pendingTotal, projectKeys, readAll, roundRobinClient, soakClaimSender } from "./lib/soak-service.mjs";
import { verifySoak } from "./lib/soak-verify.mjs";
import { ROOT, createFundedProject, startChain, startService, stepPrinter, stopChildren } from "./lib/stack.mjs";

const DEFAULT_N = 5000;
const { values: opts } = parseArgs({
  options: {
    claims: { type: "string", default: process.env.CLAIMS ?? String(DEFAULT_N) },
    concurrency: { type: "string", default: process.env.CONCURRENCY ?? "64" },
    "settle-timeout": { type: "string", default: "900" },
    "fail-probability": { type: "string", default: "0.05" },
    "delay-probability": { type: "string", default: "0.2" },
    "max-delay-ms": { type: "string", default: "2000" },
    "secret-keys": { type: "string", default: "8" },
    "api-keys": { type: "string", default: "4" },
    note: { type: "string", default: "" },
    "no-write": { type: "boolean", default: false },
  },
});
const settings = {
  N: Number(opts.claims),
  defaultN: DEFAULT_N,
  C: Number(opts.concurrency),
  settleTimeoutS: Number(opts["settle-timeout"]),
  failProbability: Number(opts["fail-probability"]),
  delayProbability: Number(opts["delay-probability"]),
  maxDelayMs: Number(opts["max-delay-ms"]),
  secretKeys: Number(opts["secret-keys"]),
  apiKeys: Number(opts["api-keys"]),
  scaledReason: opts.note,
  // Where in the request phase (share of requests finished) the anvil-side faults happen.
  dropsAt: [0.25, 0.75],
  spikeAt: 0.5,
  spikeFactor: 50n,
};
if (!(Number.isInteger(settings.N) && settings.N > 0 && Number.isInteger(settings.C) && settings.C > 0)) throw new Error("--claims and --concurrency must be positive integers");

// Production engine settings except the deadline: at 3,600 s it is longer than the whole run
// plus the settle cap, so a slow transaction shows up as pending, never as failed-for-slowness.
const ENGINE_VARS = { ENGINE_FAIL_AFTER_SECONDS: "3600" };
const PRODUCTION_VARS = Object.fromEntries([...readFileSync(path.join(ROOT, "wrangler.toml"), "utf8").matchAll(/^(ENGINE_\w+)\s*=\s*"([^"]*)"/gm)].map((m) => [m[1], m[2]]));
const EVIDENCE_DIR = ".dev/soak";

/** The commit the bundle starts from and how many files under src/ differ from it (the bundle is of the working tree). */
function sourceState() {
  try {
    const git = (...args) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" });
    return { commit: git("rev-parse", "--short", "HEAD").trim(), dirtySrcFiles: git("status", "--porcelain", "--", "src").split("\n").filter(Boolean).length };
  } catch {
    return null;
  }
}

const tmp = mkdtempSync(path.join(os.tmpdir(), "mintyard-bench-soak-"));
let proxy;
let stopping = false;
async function shutdown(code) {
  if (stopping) return;
  stopping = true;
  await stopChildren();
  await proxy?.stop();
  try {
    rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
  } catch (error) {
    // A workerd still flushing its files: leave the temp dir rather than hide the exit code.
    process.stderr.write(`could not remove ${tmp}: ${error.message}\n`);
  }
  process.exit(code);
}
process.on("SIGINT", () => (console.log("\nStopping…"), shutdown(130)));
process.on("SIGTERM", () => shutdown(143));

const step = stepPrinter();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const copy = (o) => JSON.parse(JSON.stringify(o));
/** Proxy stats accumulated since `before` (a copy of the stats at that time). */
function statsSince(before, now) {
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

async function main() {
  const runStarted = performance.now();
  const evidence = path.join(ROOT, EVIDENCE_DIR);
  rmSync(evidence, { recursive: true, force: true });
  mkdirSync(evidence, { recursive: true });
  console.log(`Soak: N=${settings.N} claims at C=${settings.C}; faults: ${settings.failProbability * 100} % failed calls, ${settings.delayProbability * 100} % delayed ≤ ${settings.maxDelayMs} ms, mempool drops at ${settings.dropsAt.join(", ")}, base-fee spike at ${settings.spikeAt}`);

  const source = sourceState();
  const chain = await startChain({ anvilOptions: { blockTime: 1 }, step });
  const { anvil } = chain;
  const recorder = broadcastRecorder();
  proxy = await startRpcProxy({ target: anvil.url, onCall: recorder.onCall });
  const persistDir = path.join(tmp, "state");
  const service = await startService({
    ...chain,
    serviceRpcUrl: async () => proxy.url,
    vars: ENGINE_VARS,
    persistDir,
    secretsFile: path.join(tmp, "secrets.env"),
    snapshotDir: path.join(tmp, "bundle"),
    step,
  });
  // The whole wrangler log, for evidence (startService keeps only its last 20 kB).
  const wranglerLog = createWriteStream(path.join(evidence, "wrangler.log"));
  service.wrangler.stdout.on("data", (chunk) => wranglerLog.write(chunk));
  service.wrangler.stderr.on("data", (chunk) => wranglerLog.write(chunk));
  // wrangler dev dying mid-run (it has run out of memory under this load) is a finding, not a crash of the soak.
  let wranglerExit = null;
  let runOver = false;
  service.wrangler.once("exit", (code, sig) => {
    if (runOver) return;
    wranglerExit = { code, signal: sig, at: (performance.now() - runStarted) / 1000 };
    console.log(`  !! wrangler dev exited (${sig ?? `code ${code}`}) at ${wranglerExit.at.toFixed(0)} s of the run`);
  });
  const files = { peak: 0, limit: null };
  const sampleFiles = () => {
    const now = workerdFiles(service.wrangler.pid);
    if (now) {
      files.peak = Math.max(files.peak, now.fds);
      files.limit ??= now.limit;
    }
    return now;
  };

  let done = step(`Creating the project, ${settings.secretKeys} secret and ${settings.apiKeys} API keys, and deploying its drop (no faults yet)`);
  const project = await createFundedProject(service, "Soak", { ether: 100_000n });
  const keys = await projectKeys(service, project, { secret: settings.secretKeys, api: settings.apiKeys });
  const client = roundRobinClient(service.baseUrl, keys);
  const contract = await deployBenchDrop(apiClient(service.baseUrl, project));
  done(`drop ${contract}, wallet ${project.walletAddress}`);

  const wallet = project.walletAddress;
  const recipients = freshRecipients("soak", settings.N);
  const before = { block: await headBlock(anvil.url), nonce: (await walletNonces(anvil.url, wallet)).latest, minted: await totalMinted(anvil.url, contract) };
  const sampleCpu = cpuSampler({ wranglerPid: service.wrangler.pid, anvilPid: anvil.process.pid });
  const cpu = [sampleCpu()];

  console.log(`\nClaims: ${settings.N} at concurrency ${settings.C} through ${service.baseUrl} (chain RPC via the proxy ${proxy.url}); wallet nonce ${before.nonce}, block ${before.block}`);
  const proxyBefore = copy(proxy.stats);
  proxy.setRules(soakRules(settings));
  const startedAt = performance.now();
  const startedAtEpoch = Date.now();
  const schedule = faultSchedule(
    [
      ...settings.dropsAt.map((at) => ({ at, name: "mempool drop", run: () => mempoolDrop({ anvil, wallet, contract }) })),
      { at: settings.spikeAt, name: "base-fee spike", run: () => baseFeeSpike({ anvil, wallet, factor: settings.spikeFactor }) },
    ],
    { startedAt },
  );
  const send = soakClaimSender(client, contract, recipients);
  let finished = 0;
  let accepted = 0;
  const tracked = async (i) => {
    try {
      const outcome = await send(i);
      if (outcome.ok) accepted += 1;
      return outcome;
    } finally {
      // A request that threw (connection refused) still counts as answered: runConcurrent records it.
      finished += 1;
      schedule.progress(finished / settings.N);
    }
  };
  const status = async () => {
    const t = ((performance.now() - startedAt) / 1000).toFixed(0);
    const pending = await pendingTotal(client).catch((e) => `? (${e.message.slice(0, 40)})`);
    const nonces = await walletNonces(anvil.url, wallet);
    const open = sampleFiles();
    const pool = `${nonces.pooled} in the pool${nonces.queued ? ` (${nonces.queued} queued behind a gap at nonce ${nonces.latest})` : ""}`;
    return `  [soak ${t} s] ${finished}/${settings.N} answered, ${accepted} accepted, ${finished - accepted} rejected; API pending ${pending}; wallet nonce ${nonces.latest} mined, ${pool}; proxy ${proxy.stats.calls - proxyBefore.calls} calls, ${proxy.stats.failed - proxyBefore.failed} failed, ${proxy.stats.delayed - proxyBefore.delayed} delayed${open ? `; workerd ${open.fds} open files` : ""}`;
  };
  let ticking = true;
  const ticker = (async () => {
    while (ticking) {
      await sleep(15_000);
      if (ticking) console.log(await status());
    }
  })();
  const load = await runConcurrent({ count: settings.N, concurrency: settings.C, send: tracked, label: "claims" });
  ticking = false;
  await schedule.done();
  cpu.push(sampleCpu());
  const requestSeconds = (load.endedAt - startedAt) / 1000;

  console.log(`\nWaiting until nothing is pending (API) and the wallet's pool is empty (chain); cap ${settings.settleTimeoutS} s`);
  const settleDeadline = performance.now() + settings.settleTimeoutS * 1000;
  let settledAt = null;
  let lastLine = 0;
  for (;;) {
    const began = performance.now();
    const [pending, nonces] = await Promise.all([pendingTotal(client).catch(() => null), walletNonces(anvil.url, wallet)]);
    const took = performance.now() - began;
    // A slow status read is itself a finding (the service starved or stuck): say so.
    if (took > 10_000) console.log(`  (status read took ${(took / 1000).toFixed(1)} s; API pending ${pending ?? "unknown: the read failed"})`);
    sampleFiles();
    if (pending === 0 && nonces.pooled === 0) {
      settledAt = performance.now();
      break;
    }
    if (performance.now() > settleDeadline || wranglerExit) break;
    if (performance.now() - lastLine > 15_000) {
      lastLine = performance.now();
      console.log(await status());
    }
    await sleep(2000);
  }
  await ticker;
  proxy.setRules([]);
  cpu.push(sampleCpu());
  const cpuAt = performance.now();
  const proxyStats = statsSince(proxyBefore, proxy.stats);
  console.log(settledAt ? `  settled ${((settledAt - startedAt) / 1000).toFixed(1)} s after the first request` : `  still unsettled after the cap: ${await status()}`);

  done = step("Reading back every accepted claim (API) and the run's blocks (chain)");
  const acceptedResults = load.results.filter((r) => r.ok);
  // D1 is read straight from the run's local state: it answers even when wrangler dev does not,
  // and it has the nonces the API does not show.
  const d1Rows = await d1Transactions(persistDir);
  const healthy = !wranglerExit && (await fetch(`${service.baseUrl}/health`, { signal: AbortSignal.timeout(20_000) }).then((r) => r.ok).catch(() => false));
  const apiList = healthy ? await readAll(client, acceptedResults.map((r) => r.transactionId)) : [];
  const d1ById = new Map((Array.isArray(d1Rows) ? d1Rows : []).map((r) => [r.id, { id: r.id, status: r.status, transactionHash: r.transaction_hash, errorMessage: r.error_message, from: "d1" }]));
  // Where the API could not answer (wrangler dev gone or overloaded), the same row from D1, marked as such.
  let fromD1 = 0;
  const statuses = acceptedResults.map((r, k) => {
    const api = apiList[k];
    if (api && typeof api.status === "string" && !api.status.startsWith("http")) return api;
    fromD1 += 1;
    return d1ById.get(r.transactionId) ?? api ?? { id: r.transactionId, status: "unknown", transactionHash: null };
  });
  const apiTxs = new Map(statuses.map((t, k) => [acceptedResults[k].transactionId, t]));
  const verdict = await verifySoak({ rpcUrl: anvil.url, wallet, contract, results: load.results, apiTxs, before });
  done(fromD1 ? `${fromD1} statuses read from D1: the API did not answer` : "");

  runOver = true;
  // Our copy of the wrangler log ends here (the verdict is in); its failure lines are counted.
  await new Promise((resolve) => wranglerLog.end(resolve));
  const log = await logFacts(path.join(evidence, "wrangler.log"));
  const settleEnd = settledAt ?? cpuAt;
  const timing = {
    requestSeconds,
    settledSeconds: settledAt ? (settledAt - startedAt) / 1000 : null,
    totalSeconds: (performance.now() - runStarted) / 1000,
  };
  const rows = soakRows({ settings, results: load.results, timing, verdict, proxy: proxyStats, events: schedule.happened, files, log });
  const cpuLine = (label, c, seconds) =>
    `CPU, ${label}: ${Object.entries(c).map(([k, val]) => `${k} ${val.toFixed(1)}`).join(", ")} CPU s in ${seconds.toFixed(1)} s (2 cores = ${(2 * seconds).toFixed(0)} CPU s)`;
  const lines = [
    ...(wranglerExit ? [`**wrangler dev exited ${wranglerExit.signal ?? `with code ${wranglerExit.code}`} ${wranglerExit.at.toFixed(0)} s into the run** (its log ends in .dev/soak/wrangler.log); the verdict uses D1 and the chain`] : []),
    ...(fromD1 ? [`${fromD1} of ${acceptedResults.length} accepted claims' statuses were read from D1 (the local database the API reads), because the API did not answer`] : []),
    ...faultLines({ settings, proxy: proxyStats, events: schedule.happened, v: verdict }),
    cpuLine("request phase", cpuDelta(cpu[0], cpu[1]), requestSeconds),
    cpuLine(settledAt ? "settling" : "settle wait (to the cap)", cpuDelta(cpu[1], cpu[2]), Math.max(0.1, (settleEnd - load.endedAt) / 1000)),
  ];
  const checks = verdictOf(rows);
  const passed = checks.every((r) => r.pass);

  console.log("");
  printTable(rows, HEADER);
  console.log(`\n${lines.join("\n")}`);
  for (const [kind, examples] of Object.entries(verdict.examples)) {
    if (examples.length && kind !== "predictionMiss") console.log(`\n${kind} (${verdict.counts[kind]}), first ${examples.length}:\n${examples.map((e) => `  ${JSON.stringify(e)}`).join("\n")}`);
  }
  if (verdict.missingNonces.length || verdict.reusedNonces.length || verdict.others.length || verdict.strangers.length) {
    console.log(`\nnonces unused: ${verdict.missingNonces.slice(0, 20).join(", ")}; reused: ${verdict.reusedNonces.slice(0, 20).join(", ")}; other transactions: ${JSON.stringify(verdict.others.slice(0, 10))}; mints to unknown recipients: ${JSON.stringify(verdict.strangers.slice(0, 10))}`);
  }
  const problemIndices = [...new Set(Object.entries(verdict.all).filter(([kind]) => kind !== "predictionMiss").flatMap(([, list]) => list.map((p) => p.i)))].sort((a, b) => a - b);
  const problems = timelines({ indices: problemIndices, results: load.results, d1Rows, sends: recorder.sends, mined: verdict.minedTransactions });
  if (problems.length) console.log(`\nTimelines of the first ${Math.min(6, problems.length)} of ${problems.length} problem claims (t = ms since the proxy started; claims began at ${startedAtEpoch - recorder.origin} ms):`);
  for (const p of problems.slice(0, 6)) console.log(formatTimeline(p));

  console.log(`\nSoak ${passed ? "PASS" : "FAIL"}: ${checks.filter((r) => r.pass).length}/${checks.length} checks pass${passed ? "" : ` (failing: ${checks.filter((r) => !r.pass).map((r) => r.name).join("; ")})`}`);

  // Evidence: everything needed to chase a failure without rerunning.
  const write = (name, data) => writeFileSync(path.join(evidence, name), `${JSON.stringify(data, null, 1)}\n`);
  write("requests.json", load.results.map(({ start, end, ...r }) => r));
  write("api-transactions.json", statuses);
  write("verdict.json", verdict);
  write("problems.json", problems);
  write("broadcasts.json", recorder.sends);
  write("d1-transactions.json", d1Rows);
  write("proxy.json", { total: proxy.stats, run: proxyStats, events: schedule.happened });
  write("settings.json", { ...settings, spikeFactor: Number(settings.spikeFactor), engineVars: ENGINE_VARS, wallet, contract, before, timing, passed, wranglerExit, files, fromD1, source, claimsStartedMsAfterProxy: startedAtEpoch - recorder.origin });
  console.log(`Evidence in ${EVIDENCE_DIR}/`);

  if (!opts["no-write"]) {
    writeResults("bench/results/soak.json", rows);
    const doc = "docs/reliability.md";
    if (!existsSync(path.join(ROOT, doc))) writeFileSync(path.join(ROOT, doc), "# Reliability\n");
    writeDocSection(doc, "bench:soak", docSection({ settings, source, rows, lines, passed, problems, evidenceDir: `${EVIDENCE_DIR}/`, engineVars: ENGINE_VARS, productionVars: PRODUCTION_VARS }));
    console.log("Wrote bench/results/soak.json and the soak section of docs/reliability.md");
  }
  return passed;
}

main()
  .then((passed) => shutdown(passed ? 0 : 1))
  .catch(async (error) => {
    process.stderr.write(`\nbench:soak failed: ${error.stack ?? error.message}\n`);
    await shutdown(1);
  });
