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
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
import { broadcastRecorder, logTap, timelines } from "./lib/soak-evidence.mjs";
import { baseFeeSpike, faultSchedule, mempoolDrop, soakRules } from "./lib/soak-faults.mjs";
import { monitor, openFilesWatch, readBack, ticker, waitToSettle, watchdog } from "./lib/soak-phases.mjs";
import { HEADER, docSection, faultLines, printFindings, soakRows, stuckNonce, verdictOf } from "./lib/soak-report.mjs";
import { projectKeys, roundRobinClient, soakClaimSender } from "./lib/soak-service.mjs";
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
  const wranglerLog = logTap(path.join(evidence, "wrangler.log"));
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

  const done = step(`Creating the project, ${settings.secretKeys} secret and ${settings.apiKeys} API keys, and deploying its drop (no faults yet)`);
  const project = await createFundedProject(service, "Soak", { ether: 100_000n });
  const keys = await projectKeys(service, project, { secret: settings.secretKeys, api: settings.apiKeys });
  // A service that stops answering ends the run within a minute, with a line saying so.
  const alive = watchdog({
    baseUrl: service.baseUrl,
    onDead: (silentS) => {
      const open = files.sample();
      console.log(
        `\n!! bench:soak: the service stopped answering: no HTTP answer (claims, reads or /health) for ${silentS.toFixed(0)} s.` +
          `${open ? ` workerd holds ${open.fds} open files (${open.sockets} sockets, ${open.storage} storage; limit ${open.limit}).` : ""}` +
          ` The wrangler log is in ${EVIDENCE_DIR}/wrangler.log. Failing the run.`,
      );
      shutdown(1);
    },
  });
  const client = roundRobinClient(service.baseUrl, keys, { onAnswer: alive.noteAnswer });
  const contract = await deployBenchDrop(apiClient(service.baseUrl, project));
  done(`drop ${contract}, wallet ${project.walletAddress}`);

  const wallet = project.walletAddress;
  const recipients = freshRecipients("soak", settings.N);
  const before = { block: await headBlock(anvil.url), nonce: (await walletNonces(anvil.url, wallet)).latest, minted: await totalMinted(anvil.url, contract) };
  let mon;
  const files = openFilesWatch({ wranglerPid: service.wrangler.pid, answeredShare: () => (mon ? mon.counters.finished / settings.N : 0) });
  const sampleCpu = cpuSampler({ wranglerPid: service.wrangler.pid, anvilPid: anvil.process.pid });
  const cpu = [sampleCpu()];

  console.log(`\nClaims: ${settings.N} at concurrency ${settings.C} through ${service.baseUrl} (chain RPC via the proxy ${proxy.url}); wallet nonce ${before.nonce}, block ${before.block}`);
  mon = monitor({ client, anvilUrl: anvil.url, wallet, proxy, files, total: settings.N });
  proxy.setRules(soakRules(settings));
  const { startedAt } = mon.counters;
  const startedAtEpoch = Date.now();
  const schedule = faultSchedule(
    [
      ...settings.dropsAt.map((at) => ({ at, name: "mempool drop", run: () => mempoolDrop({ anvil, wallet, contract }) })),
      { at: settings.spikeAt, name: "base-fee spike", run: () => baseFeeSpike({ anvil, wallet, factor: settings.spikeFactor }) },
    ],
    { startedAt },
  );
  const send = soakClaimSender(client, contract, recipients);
  const tracked = async (i) => {
    try {
      const outcome = await send(i);
      if (outcome.ok) mon.counters.accepted += 1;
      return outcome;
    } finally {
      // A request that threw (connection refused) still counts as answered: runConcurrent records it.
      mon.counters.finished += 1;
      schedule.progress(mon.counters.finished / settings.N);
    }
  };
  const stopTicker = ticker(mon.status);
  const load = await runConcurrent({ count: settings.N, concurrency: settings.C, send: tracked, label: "claims" });
  const tickerDone = stopTicker();
  await schedule.done();
  cpu.push(sampleCpu());
  const requestSeconds = (load.endedAt - startedAt) / 1000;

  console.log(`\nWaiting until nothing is pending (API) and the wallet's pool is empty (chain); cap ${settings.settleTimeoutS} s`);
  const settledAt = await waitToSettle({ client, anvilUrl: anvil.url, wallet, timeoutS: settings.settleTimeoutS, mon, gaveUp: () => Boolean(wranglerExit) });
  await tickerDone;
  proxy.setRules([]);
  files.stop();
  cpu.push(sampleCpu());
  const settleEnd = settledAt ?? performance.now();
  const proxyStats = mon.proxyStats();
  console.log(settledAt ? `  settled ${((settledAt - startedAt) / 1000).toFixed(1)} s after the first request` : `  still unsettled after the cap: ${await mon.status()}`);

  const reading = step("Reading back every accepted claim (API, else D1) and the run's blocks (chain)");
  const acceptedResults = load.results.filter((r) => r.ok);
  const { statuses, d1Rows, fromD1 } = await readBack({ client, baseUrl: service.baseUrl, persistDir, accepted: acceptedResults, serviceGone: Boolean(wranglerExit) });
  const apiTxs = new Map(statuses.map((t, k) => [acceptedResults[k].transactionId, t]));
  const verdict = await verifySoak({ rpcUrl: anvil.url, wallet, contract, results: load.results, apiTxs, before });
  reading(fromD1 ? `${fromD1} statuses read from D1: the API did not answer` : "");

  runOver = true;
  alive.stop();
  // Our copy of the wrangler log ends here (the verdict is in); its failure lines are counted.
  const log = await wranglerLog.end();
  const timing = {
    requestSeconds,
    settledSeconds: settledAt ? (settledAt - startedAt) / 1000 : null,
    totalSeconds: (performance.now() - runStarted) / 1000,
  };
  const rows = soakRows({ settings, results: load.results, timing, verdict, proxy: proxyStats, events: schedule.happened, files: files.figures, log });
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
  const problemIndices = [...new Set(Object.entries(verdict.all).filter(([kind]) => kind !== "predictionMiss").flatMap(([, list]) => list.map((p) => p.i)))].sort((a, b) => a - b);
  const problems = timelines({ indices: problemIndices, results: load.results, d1Rows, sends: recorder.sends, mined: verdict.minedTransactions });
  const stuck = stuckNonce(verdict, { sends: recorder.sends, results: load.results, d1Rows });

  console.log("");
  printTable(rows, HEADER);
  console.log(`\n${lines.join("\n")}`);
  printFindings(verdict, problems, startedAtEpoch - recorder.origin, stuck);
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
  write("settings.json", { ...settings, spikeFactor: Number(settings.spikeFactor), engineVars: ENGINE_VARS, wallet, contract, before, timing, passed, wranglerExit, files: files.figures, log, fromD1, source, claimsStartedMsAfterProxy: startedAtEpoch - recorder.origin });
  console.log(`Evidence in ${EVIDENCE_DIR}/`);

  if (!opts["no-write"]) {
    // The default run and each other size keep their own record (a long soak beside the usual one).
    const suffix = settings.N === settings.defaultN ? "" : `-${settings.N}`;
    writeResults(`bench/results/soak${suffix}.json`, rows);
    const doc = "docs/reliability.md";
    if (!existsSync(path.join(ROOT, doc))) writeFileSync(path.join(ROOT, doc), "# Reliability\n");
    writeDocSection(doc, `bench:soak${suffix}`, docSection({ settings, source, rows, lines, passed, problems, stuck, evidenceDir: `${EVIDENCE_DIR}/`, engineVars: ENGINE_VARS, productionVars: PRODUCTION_VARS }));
    console.log(`Wrote bench/results/soak${suffix}.json and its section of docs/reliability.md`);
  }
  return passed;
}

main()
  .then((passed) => shutdown(passed ? 0 : 1))
  .catch(async (error) => {
    process.stderr.write(`\nbench:soak failed: ${error.stack ?? error.message}\n`);
    await shutdown(1);
  });
