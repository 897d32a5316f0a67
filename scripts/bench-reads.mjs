// npm run bench:reads — asset read latency of the service under `wrangler dev` against the same
// SQL run straight on SQLite (the floor). Seeds a local D1 with 100k assets, measures the
// single-asset route and /v1/assets/explore per filter and sort at concurrency 16, then runs the
// equivalent SQL on the very database file wrangler served. Prints a table, writes
// bench/results/reads.json and the reads section of docs/benchmarks.md.
// Options: --assets N (default 100000), --requests N per case (2000), --seconds S per case cap
// (20), --keep (leave the state dir), --no-write (print only: for trial runs), --devtools (keep
// wrangler dev's DevTools inspector attached, as `npm run dev` has it; detached by default:
// scripts/lib/wrangler-devtools.mjs).
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { english, generateMnemonic } from "viem/accounts";
import { buildCases, overheadProbe } from "./lib/bench-reads-cases.mjs";
import { cpuWindow, ownProcessGroup } from "./lib/bench-reads-cpu.mjs";
import { createDataset, DEFAULTS } from "./lib/bench-reads-data.mjs";
import { openFloor } from "./lib/bench-reads-floor.mjs";
import { getJson, runLoad } from "./lib/bench-reads-load.mjs";
import { compareWithFloor, report } from "./lib/bench-reads-report.mjs";
import { seedSqlite } from "./lib/bench-reads-seed.mjs";
import { runWhatIf } from "./lib/bench-reads-whatif.mjs";
import { applyMigrations, bundleWorker, d1SqliteFile, startWorkerdDirect, startWranglerDev, wrangler } from "./lib/bench-reads-stack.mjs";

const { values: opts } = parseArgs({
  options: {
    assets: { type: "string", default: String(DEFAULTS.assets) },
    requests: { type: "string", default: "2000" },
    seconds: { type: "string", default: "20" },
    keep: { type: "boolean", default: false },
    "no-write": { type: "boolean", default: false },
    devtools: { type: "boolean", default: false },
  },
});
const CONCURRENCY = 16;
const MAX_REQUESTS = Number(opts.requests);
const MAX_MS = Number(opts.seconds) * 1000;
const SEQUENTIAL = { maxRequests: 200, maxMs: 5000 }; // the concurrency-1 diagnostic pass

const log = (line) => process.stdout.write(`${line}\n`);
const timed = async (label, fn) => {
  const started = Date.now();
  process.stdout.write(`• ${label}…`);
  const result = await fn();
  process.stdout.write(` done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return result;
};

const stateDir = mkdtempSync(path.join(os.tmpdir(), "mintyard-bench-reads-"));
let service;
const cleanup = async () => {
  await service?.stop();
  if (!opts.keep) rmSync(stateDir, { recursive: true, force: true });
};
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => cleanup().finally(() => process.exit(130)));

try {
  await main();
} catch (error) {
  process.stderr.write(`\nbench:reads failed: ${error.stack ?? error.message}\n`);
  if (service) process.stderr.write(`\nwrangler dev's last output:\n${service.log().slice(-3000)}\n`);
  process.exitCode = 1;
} finally {
  await cleanup();
  if (opts.keep) log(`state kept in ${stateDir}`);
}

async function main() {
  const dataset = createDataset({ assets: Number(opts.assets) });
  const cases = buildCases(dataset);

  await timed("Applying D1 migrations (wrangler, local)", () => applyMigrations(stateDir));
  const sqliteFile = d1SqliteFile(stateDir);
  await timed(`Seeding ${dataset.counts.collections} collections and ${dataset.size.toLocaleString("en-US")} assets into ${path.relative(stateDir, sqliteFile)}`, () => {
    let rows = 0;
    let shown = 0;
    seedSqlite(sqliteFile, dataset.rows, (table, n) => {
      rows += n;
      if (rows - shown >= 50_000) (shown = rows), process.stdout.write(` ${Math.round(rows / 1000)}k rows`);
    });
  });
  const c = dataset.counts;
  log(`  ${c.assets} assets, ${c.collections} collections, ${c.ownerships} ownerships, ${c.orders} orders (${c.activeOrders} active on ${c.listedAssets} listed assets)`);
  // Read the rows back through wrangler itself: proves the seed landed where wrangler dev looks.
  const seen = JSON.parse(await wrangler(["d1", "execute", "DB", "--local", "--persist-to", stateDir, "--json", "--command", "select count(*) as n from assets"]))[0].results[0].n;
  if (seen !== c.assets) throw new Error(`wrangler sees ${seen} assets, ${c.assets} were seeded`);

  // No chain is needed for reads: every configured chain points at a closed port (health says degraded).
  const chain = (name) => ({ name, rpcUrl: "http://127.0.0.1:9", seaportAddress: "0x0000000000000068F116a894984e2DB1123eB395", dropFactoryAddress: `0x${"0".repeat(40)}`, confirmations: 0, nativeSymbol: "ETH" });
  const vars = {
    CHAINS: JSON.stringify({ 1868: chain("soneium"), 1946: chain("soneium-minato") }),
    WALLET_MNEMONIC: generateMnemonic(english),
    ADMIN_TOKEN: randomBytes(24).toString("base64url"),
  };
  let nextKey = 0;
  const headers = () => ({ "x-api-key": dataset.apiKeys[nextKey++ % dataset.apiKeys.length] });
  const loadAvg = [os.loadavg()[0]];

  const bundle = await timed("Bundling the Worker (wrangler deploy --dry-run)", () => bundleWorker(stateDir));
  service = await timed("Starting wrangler dev", () => startWranglerDev({ persistDir: stateDir, bundle, vars, devtools: opts.devtools }));
  // One page of every case, kept to compare with the direct SQL once wrangler has stopped.
  const samples = [];
  for (const testCase of cases) {
    const query = testCase.draw();
    const { status, json } = await getJson(service.baseUrl, testCase.path(query), headers());
    if (status !== 200) throw new Error(`${testCase.name}: ${status} ${JSON.stringify(json)}`);
    samples.push({ testCase, query, json });
  }
  const results = [overheadProbe, ...cases].map((testCase) => ({ testCase }));
  await measureService("wrangler dev", service, headers, results, "wrangler");
  await service.stop();

  service = await timed("Starting the same Worker on Miniflare directly (diagnostic, no wrangler dev proxy)", () => startWorkerdDirect({ persistDir: stateDir, bundle, vars }));
  await measureService("workerd direct", { ...service, pid: ownProcessGroup() }, headers, results, "direct");
  await service.stop();
  service = undefined;
  loadAvg.push(os.loadavg()[0]);

  const floor = openFloor(sqliteFile);
  try {
    for (const result of results) {
      if (result.testCase.kind === "probe") continue;
      process.stdout.write(`• direct SQL: ${result.testCase.name}`);
      result.floor = floor.measure(result.testCase, { maxRequests: MAX_REQUESTS, maxMs: 10_000 });
      result.plan = floor.explain(result.testCase);
      process.stdout.write(`: p95 ${result.floor.p95.toFixed(2)} ms\n`);
    }
    const mismatches = compareWithFloor(samples, floor);
    const whatIf = await timed("What if: candidate indexes and query shapes on a copy of the database", () =>
      runWhatIf(sqliteFile, path.join(stateDir, "whatif.sqlite")),
    );
    report({ results, dataset, mismatches, whatIf, loadAvg, concurrency: CONCURRENCY, devtools: opts.devtools, write: !opts["no-write"] });
  } finally {
    floor.close();
  }
}

/** Every case at concurrency 16 (after a warm-up), then at concurrency 1; stored as result[key]. */
async function measureService(label, target, headers, results, key) {
  for (const result of results) {
    const { testCase } = result;
    const load = (concurrency, maxRequests, maxMs) =>
      runLoad({ baseUrl: target.baseUrl, headers, nextPath: () => testCase.path(testCase.draw()), concurrency, maxRequests, maxMs, expectStatus: testCase.expectStatus });
    process.stdout.write(`• ${label}: ${testCase.name}: warm-up`);
    await load(CONCURRENCY, 100, 10_000);
    process.stdout.write(", concurrency 16");
    const end = cpuWindow(target.pid);
    const loaded = await load(CONCURRENCY, MAX_REQUESTS, MAX_MS);
    const cpu = end();
    const requests = loaded.n + loaded.errors;
    const perRequest = cpu && requests ? Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, v / requests])) : null;
    const cpuNote = perRequest ? ` (CPU/request: workerd ${perRequest.workerd.toFixed(1)} ms${key === "wrangler" ? `, wrangler ${perRequest.wrangler.toFixed(1)} ms` : ""})` : "";
    process.stdout.write(`: p95 ${loaded.p95.toFixed(1)} ms, ${loaded.rps.toFixed(0)} req/s${cpuNote}; concurrency 1`);
    const sequential = await load(1, SEQUENTIAL.maxRequests, SEQUENTIAL.maxMs);
    process.stdout.write(`: p50 ${sequential.p50.toFixed(1)} ms\n`);
    if (loaded.errors || sequential.errors) log(`  ${loaded.errors + sequential.errors} unexpected answers, first: ${loaded.firstError ?? sequential.firstError}`);
    result[key] = { loaded, sequential, cpu: perRequest };
  }
}
