// npm run bench:claims -- --profile: where a claim's time goes. On one chain, the same N claims
// at concurrency C run twice, each service behind its own counting JSON-RPC proxy
// (scripts/lib/rpc-proxy.mjs, no fault rules):
//   devtools attached  wrangler dev as `npm run dev` runs it;
//   devtools detached  wrangler dev as the benchmark runs it (scripts/lib/wrangler-devtools.mjs);
// plus the raw baseline, a 1-at-a-time latency probe per service, CPU per process and RPC calls
// per claim by method. The proxy adds a hop to every RPC call, so these rates are a little below
// the benchmark's; the comparison between the two services is like for like. Writes
// bench/results/claims-profile.json and its own block of docs/benchmarks.md.
import os from "node:os";
import { fmt, writeDocSection, writeResults } from "./bench-report.mjs";
import { rawRun, serialProbe, serviceRun } from "./claims-runs.mjs";
import { cpuSampler } from "./proc-cpu.mjs";
import { startRpcProxy } from "./rpc-proxy.mjs";

const PROBE_CLAIMS = 20;
const RUNNERS = [
  { runner: "devtools-attached", label: "devtools attached", devtools: true },
  { runner: "devtools-detached", label: "devtools detached", devtools: false },
];
// Which part of the engine sends each method (src/services/engine, src/chain/transactions.ts).
const SENDERS = {
  eth_estimateGas: "sequencer: gas estimate, every claim",
  eth_sendRawTransaction: "sequencer: broadcast",
  eth_getBlockByNumber: "sequencer: fee quote (cached 1 s)",
  eth_maxPriorityFeePerGas: "sequencer: fee quote (cached 1 s)",
  eth_getTransactionReceipt: "watcher: one per poll",
  eth_getTransactionCount: "watcher polls while unmined; sequencer nonce sync",
  eth_getTransactionByHash: "watcher polls while unmined",
  eth_blockNumber: "watcher polls while unmined",
  eth_call: "reads (drop address prediction)",
};

const diff = (before = {}, after = {}) => Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - (before[k] ?? 0)]).filter(([, v]) => v > 0));
const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0);

async function profileService({ chain, serviceWithDrop, settings, runner, label, devtools }) {
  const proxy = await startRpcProxy({ target: chain.anvil.url });
  const s = await serviceWithDrop(chain, runner, { devtools, serviceRpcUrl: async () => proxy.url });
  try {
    console.log(`\n${label}: ${PROBE_CLAIMS} claims one at a time`);
    const probe = await serialProbe({ api: s.api, contract: s.contract, count: PROBE_CLAIMS, tag: `${runner} probe`, pollMs: settings.pollMs, timeoutMs: settings.timeoutMs });
    console.log(`  p50 ${fmt(probe.p50)} ms, p99 ${fmt(probe.p99)} ms`);
    console.log(`\n${label}: ${settings.N} claims at concurrency ${settings.C}`);
    const marks = {};
    const run = await serviceRun({
      ...s,
      count: settings.N,
      concurrency: settings.C,
      pollMs: settings.pollMs,
      timeoutMs: settings.timeoutMs,
      label,
      tag: runner,
      onPhase: (name) => (marks[name] = { ...proxy.stats.byMethod }),
    });
    return { probe, run, rpc: { requests: diff(marks.requests, marks.confirmations), confirmations: diff(marks.confirmations, marks.verify) } };
  } finally {
    await s.service.stop();
    await proxy.stop();
  }
}

export async function runProfile({ chain, serviceWithDrop, settings, cpuLine, stateWhere }) {
  const profiled = {};
  for (const runner of RUNNERS) profiled[runner.runner] = { label: runner.label, ...(await profileService({ chain, serviceWithDrop, settings, ...runner })) };
  console.log(`\nRaw baseline: ${settings.N} pre-signed mintTo at concurrency ${settings.C} straight to anvil`);
  const raw = await rawRun({ chain, count: settings.N, concurrency: settings.C, sampleCpu: cpuSampler({ wranglerPid: -1, anvilPid: chain.anvil.process.pid }), pollMs: settings.pollMs, timeoutMs: settings.timeoutMs, gasBufferPercent: settings.GAS_BUFFER_PERCENT });

  const rows = profileRows(profiled, raw);
  const header = ["figure", ...RUNNERS.map((r) => r.label), "raw", "unit"];
  const cells = rows.map((r) => [r.name, fmt(r.attached, 2), fmt(r.detached, 2), fmt(r.raw, 2), r.unit]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  console.log("");
  for (const c of [header, ...cells]) console.log(c.map((v, i) => (i && i < 4 ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join("  ").trimEnd());
  const lines = RUNNERS.flatMap(({ runner, label }) => {
    const { run } = profiled[runner];
    return [cpuLine(`CPU, ${label}, request phase`, run.cpu.requests, run.requestSeconds), ...(run.failures.length ? [`${label} failures: ${run.failures.join("; ")}`] : [])];
  });
  console.log(`\n${lines.join("\n")}`);

  writeResults("bench/results/claims-profile.json", rows);
  writeDocSection(
    "docs/benchmarks.md",
    "bench:claims-profile",
    [
      `### Where a claim's time goes (npm run bench:claims -- --profile)`,
      ``,
      `Run ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, N = ${settings.N}, C = ${settings.C}, ${os.cpus().length} cores. Both services serve the same bundle on one chain, their local state ${stateWhere}, each behind a counting JSON-RPC proxy (one extra local hop per call, so rates sit a little below the benchmark's): \`wrangler dev\` with its DevTools inspector **attached** (as \`npm run dev\` runs it) and **detached** (as the benchmark runs it; scripts/lib/wrangler-devtools.mjs). RPC calls are per accepted claim over the whole run (requests and confirmation wait); "C=1" is ${PROBE_CLAIMS} claims sent one at a time.`,
      ``,
      `| ${header.join(" | ")} |`,
      `|---|---:|---:|---:|---|`,
      ...cells.map((c) => `| ${c.join(" | ")} |`),
      ``,
      ...lines.map((l) => `- ${l}`),
      ``,
      `Written by scripts/lib/claims-profile.mjs; do not edit by hand.`,
    ].join("\n"),
  );
  console.log("\nWrote bench/results/claims-profile.json and the profile block of docs/benchmarks.md");
}

function profileRows(profiled, raw) {
  const a = profiled["devtools-attached"];
  const b = profiled["devtools-detached"];
  const perClaim = (run, group) => (run.accepted ? ((run.cpu.requests[group] + run.cpu.confirmations[group]) * 1000) / run.accepted : null);
  const rpcTotal = (p) => ({ ...p.rpc.requests, ...Object.fromEntries(Object.entries(p.rpc.confirmations).map(([k, v]) => [k, v + (p.rpc.requests[k] ?? 0)])) });
  const totals = [rpcTotal(a), rpcTotal(b)];
  const methods = [...new Set(totals.flatMap(Object.keys))].sort((x, y) => (totals[0][y] ?? 0) - (totals[0][x] ?? 0));
  const r = (name, unit, f, rawValue = null) => ({ name, unit, attached: f(a), detached: f(b), raw: rawValue });
  return [
    r("claims accepted/s", "claims/s", (p) => p.run.acceptedPerSecond, raw.acceptedPerSecond),
    r("claims confirmed/s", "claims/s", (p) => p.run.confirmedPerSecond, raw.confirmedPerSecond),
    r("confirmed/s ÷ raw confirmed/s", "ratio", (p) => p.run.confirmedPerSecond / raw.confirmedPerSecond, 1),
    r("request latency p50 at concurrency C", "ms", (p) => p.run.p50, raw.p50),
    r("request latency p50 at C=1", "ms", (p) => p.probe.p50),
    r("first request → last confirmation", "s", (p) => p.run.toLastConfirmation, raw.toLastConfirmation),
    r("nonce gaps + duplicates, lost", "count", (p) => p.run.chain.nonceGaps + p.run.chain.nonceDuplicates + p.run.chain.lost, raw.chain.nonceGaps + raw.chain.nonceDuplicates + raw.chain.lost),
    r("CPU per claim: workerd", "ms", (p) => perClaim(p.run, "workerd")),
    // workerd runs the Worker and its Durable Objects on one thread: a full core for it caps the rate.
    r("≈ ceiling if workerd had a core to itself (1000 ÷ workerd ms)", "claims/s", (p) => 1000 / perClaim(p.run, "workerd")),
    r("that ceiling ÷ raw confirmed/s", "ratio", (p) => 1000 / perClaim(p.run, "workerd") / raw.confirmedPerSecond),
    r("CPU per claim: Node side of the runner (wrangler)", "ms", (p) => perClaim(p.run, "wrangler")),
    r("CPU per claim: anvil", "ms", (p) => perClaim(p.run, "anvil"), perClaim(raw, "anvil")),
    r("CPU per claim: other processes on the machine", "ms", (p) => perClaim(p.run, "others"), perClaim(raw, "others")),
    r("RPC calls per claim, request phase", "calls", (p) => sum(p.rpc.requests) / p.run.accepted, 1),
    r("RPC calls per claim, confirmation wait", "calls", (p) => sum(p.rpc.confirmations) / p.run.accepted),
    ...methods.map((m) =>
      r(`  ${m} (${SENDERS[m] ?? "other"})`, "calls/claim", (p) => (totals[p === a ? 0 : 1][m] ?? 0) / p.run.accepted, m === "eth_sendRawTransaction" ? 1 : null),
    ),
  ];
}
