// The soak's figures: one row per measured quantity ({name, value, unit, baseline, ratio,
// target, pass}; "baseline" is what the figure should equal when the engine is right), the
// fault lines, and the docs/reliability.md section.
import os from "node:os";
import { countBy } from "./claims-runs.mjs";
import { markdownTable, row } from "./bench-report.mjs";
import { percentile } from "./load.mjs";
import { formatTimeline, nonceHistory } from "./soak-evidence.mjs";
import { describe } from "./soak-faults.mjs";
import { FILES_START_UNTIL } from "./soak-phases.mjs";

export const HEADER = ["figure", "value", "unit", "expected", "ratio", "target", "result"];

const sum = (o) => Object.values(o ?? {}).reduce((a, b) => a + b, 0);

export function soakRows({ settings, results, timing, verdict: v, proxy, events, files, log = {} }) {
  const latencies = results.map((r) => r.latencyMs);
  const acceptedLatencies = results.filter((r) => r.ok).map((r) => r.latencyMs);
  const rejectedBy = countBy(results.filter((r) => !r.ok), (r) => `${r.status} ${r.error ?? ""}`.trim());
  const dropped = events.filter((e) => e.what === "mempool drop").flatMap((e) => e.dropped ?? []).filter((d) => d.gone);
  const spikes = events.filter((e) => e.what === "base-fee spike" && !e.error);
  const gaps = v.missingNonces.length + v.reusedNonces.length + v.outOfRange + v.nonces.stuckInPool;
  const expectedMined = v.confirmed + v.reverted + v.fills;
  const sends = proxy.byMethod.eth_sendRawTransaction ?? 0;
  const zero = (name, value, unit = "claims") => row(name, value, unit, { target: "0", pass: value === 0 });
  return [
    row("claims sent", results.length, "requests"),
    row("claims accepted (201)", v.accepted, "claims", { baseline: results.length }),
    row("claims rejected (4xx/5xx, see below)", v.rejected, "requests"),
    ...rejectedBy.map((line) => row(`  rejected: ${line.replace(/^(\d+)× /, "")}`, Number(line.split("×")[0]), "requests")),
    row("accepted and `confirmed`", v.confirmed, "claims", { baseline: v.accepted, target: "= accepted", pass: v.confirmed === v.accepted }),
    zero("accepted and `failed` or `reverted`", v.failed + v.reverted),
    zero("accepted and still `pending` at the end", v.stillPending),
    zero("lost: predicted token not its recipient's and transaction not confirmed", v.counts.lost),
    zero("accepted, recipient holds no token on chain", v.counts.noToken),
    zero("duplicated: recipient got > 1 mint transaction or balanceOf > 1", v.counts.duplicated),
    zero("rejected, yet minted to its recipient (or queued in the pool to be)", v.counts.ghost, "requests"),
    row("claim transactions mined (chain)", v.claimTxsMined, "transactions", { baseline: v.confirmed + v.reverted, target: "= confirmed + reverted", pass: v.claimTxsMined === v.confirmed + v.reverted }),
    row("wallet transactions mined in the run (chain)", v.walletMined, "transactions", {
      baseline: expectedMined,
      target: "= confirmed + reverted + filled = nonce delta",
      pass: v.walletMined === expectedMined && v.walletMined === v.nonces.delta && v.others.length === 0,
    }),
    row("wallet nonce delta (chain)", v.nonces.delta, "nonces", { baseline: v.walletMined }),
    row("  of which nonce fills (0-value self-transfers): watcher / sequencer", `${v.watcherFills} / ${v.sequencerFills}`, "transactions"),
    row("nonce gaps: nonces unused or reused on chain, or transactions left in the pool", gaps, "nonces", { target: "0", pass: gaps === 0 }),
    row("tokens minted (totalMinted delta)", v.minted.delta, "tokens", { baseline: v.confirmed, target: "= confirmed", pass: v.minted.delta === v.confirmed }),
    row("API hash ≠ the mined transaction's hash", v.counts.hashMismatch, "claims", { target: "0", pass: v.counts.hashMismatch === 0 }),
    row("predicted token id ≠ the one minted (recipient holds another)", v.counts.predictionMiss, "claims"),
    row("request latency p50 (all requests)", percentile(latencies, 50), "ms"),
    row("request latency p99 (all requests)", percentile(latencies, 99), "ms"),
    row("request latency p50 / p99 (accepted)", `${fmtMs(percentile(acceptedLatencies, 50))} / ${fmtMs(percentile(acceptedLatencies, 99))}`, "ms"),
    row("request phase (wall time)", timing.requestSeconds, "s", { digits: 1 }),
    row("first request → nothing pending", timing.settledSeconds, "s", { digits: 1 }),
    row("whole run (stack start → verdict)", timing.totalSeconds, "s", { digits: 1 }),
    row("accepted/s over the request phase", v.accepted / timing.requestSeconds, "claims/s", { digits: 1 }),
    row("confirmed/s (first request → nothing pending)", timing.settledSeconds ? v.confirmed / timing.settledSeconds : null, "claims/s", { digits: 1 }),
    row("RPC calls through the proxy (claims → settled)", proxy.calls, "calls"),
    row("  failed by the proxy (HTTP 503)", proxy.failed, "calls", { baseline: Math.round(proxy.calls * settings.failProbability) }),
    row(`  delayed by the proxy (0–${settings.maxDelayMs} ms)`, proxy.delayed, "calls", { baseline: Math.round(proxy.calls * (1 - settings.failProbability) * settings.delayProbability) }),
    row("mempool drops (transactions removed by anvil_dropTransaction)", `${events.filter((e) => e.what === "mempool drop" && e.dropped).length} (${dropped.length})`, "events"),
    row("base-fee spikes", spikes.length, "events"),
    ...Object.entries(log).filter(([, n]) => n > 0).map(([label, n]) => row(`wrangler log: ${label}`, n, "lines")),
    ...openFilesRows(files),
    row("eth_sendRawTransaction per accepted claim (broadcast + rebroadcasts + re-prices)", v.accepted ? sends / v.accepted : null, "calls", { digits: 2 }),
  ];
}

/**
 * workerd's open files: flat under load means the peak stays within twice the figure at the
 * start of the load plus 500 (a leak of connections grows without bound; live Durable Objects
 * come and go with the backlog).
 */
export const openFilesTarget = (start) => 2 * start + 500;

function openFilesRows(files) {
  if (!files?.start || !files.peak) return [row("workerd open files", null, "files")];
  const { idle, start, peak, end, limit } = files;
  const parts = (f) => (f ? ` (${f.sockets} sockets, ${f.storage} storage)` : "");
  const target = openFilesTarget(start.fds);
  return [
    row(`workerd open files before the first claim${parts(idle)}`, idle?.fds ?? null, "files"),
    row(`workerd open files at the start of the load, highest until ${Math.round(FILES_START_UNTIL * 100)} % answered${parts(start)}`, start.fds, "files"),
    row(`workerd open files, peak of 2 s samples${parts(peak)}`, peak.fds, "files", { baseline: start.fds, target: `≤ 2 × start + 500 = ${target}`, pass: peak.fds <= target }),
    row(`workerd open files at the end, settled${parts(end)}`, end?.fds ?? null, "files", { baseline: start.fds, target: `≤ ${target}`, pass: Boolean(end) && end.fds <= target }),
    row("workerd open files limit (ulimit -n)", limit, "files"),
  ];
}

const fmtMs = (ms) => (ms == null ? "" : ms.toFixed(0));

/** The checks a soak must pass: correctness only (rates and latency are reported, not judged). */
export const verdictOf = (rows) => rows.filter((r) => r.pass !== null);

export function faultLines({ settings, proxy, events, v }) {
  const top = (o) =>
    Object.entries(o ?? {})
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(", ");
  return [
    `proxy rules from the first claim until nothing was pending: every call fails (HTTP 503, the node never sees it) with probability ${settings.failProbability}, else is delayed by a uniform 0–${settings.maxDelayMs} ms with probability ${settings.delayProbability}`,
    `failed calls by method: ${top(proxy.failedByMethod) || "none"}`,
    `delayed calls by method: ${top(proxy.delayedByMethod) || "none"}`,
    `all calls by method: ${top(proxy.byMethod)}`,
    ...events.map((e) => `at ${e.t.toFixed(1)} s (${Math.round(e.at * 100)} % of requests done): ${describe(e)}`),
    `API statuses of accepted claims: ${Object.entries(v.statusCount).map(([k, n]) => `${n}× ${k}`).join(", ")}; wallet nonces ${v.nonces.start} → ${v.nonces.end}, ${v.nonces.stuckInPool} left in the pool${v.nonces.queuedBehindGap ? ` (${v.nonces.queuedBehindGap} queued behind a gap at nonce ${v.nonces.end})` : ""}; claim transactions mined ${v.claimTxsMined} (${v.claimTxsReverted} reverted), fills ${v.fills}, other ${v.others.length}, mints to unknown recipients ${v.strangers.length}`,
  ];
}

export function docSection({ settings, source, rows, lines, passed, problems = [], stuck = null, evidenceDir, engineVars, productionVars }) {
  const cpu = os.cpus();
  const checks = verdictOf(rows);
  const failed = checks.filter((r) => !r.pass);
  const scaled = settings.N !== settings.defaultN;
  return [
    scaled ? `## Soak under faults, ${settings.N.toLocaleString("en-US")} claims (npm run bench:soak -- --claims ${settings.N})` : `## Soak under faults (npm run bench:soak)`,
    ``,
    `Run ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC: N = ${settings.N.toLocaleString("en-US")} claims of one token, each to its own new recipient, at concurrency C = ${settings.C}, on ${cpu.length} cores (${cpu[0]?.model.trim() ?? "unknown CPU"}), Node ${process.version}, shared with whatever else the machine ran.${scaled ? ` **Not the default N = ${settings.defaultN.toLocaleString("en-US")}**: ${settings.scaledReason}` : ""}`,
    ``,
    `- **Stack**: anvil (chain 1868, prague, 1 s interval mining), the devnet contracts, \`wrangler dev\` (local D1, KV, Durable Objects) on a bundle of src/ taken at start${source ? `, from commit ${source.commit}${source.dirtySrcFiles ? ` plus ${source.dirtySrcFiles} files under src/ with uncommitted changes at the time` : ""}` : ""}. The Worker's chain RPC URL points at the misbehaving proxy (scripts/lib/rpc-proxy.mjs) in front of anvil; the benchmark's own reads go to anvil directly.`,
    `- **Engine vars**: wrangler.toml's except ${Object.entries(engineVars).map(([k, val]) => `\`${k}=${val}\` (wrangler.toml: ${productionVars[k] ?? "unset"})`).join(", ")}, so that nothing is failed merely for being slow: a transaction still pending at the settle cap is reported as pending. Unchanged: ${Object.entries(productionVars).filter(([k]) => !(k in engineVars)).map(([k, val]) => `${k}=${val}`).join(", ")}.`,
    `- **Keys**: wrangler.toml limits each key to 3,000 requests a minute. The soak creates ${settings.secretKeys} secret keys and ${settings.apiKeys} API keys for its project and sends claims round-robin over the secret keys (reads over the API keys), so it measures the engine, not the limiter.`,
    `- **Faults**: the proxy fails ${settings.failProbability * 100} % of all calls and delays ${settings.delayProbability * 100} % of the rest by up to ${settings.maxDelayMs / 1000} s (a higher delay share still finishes but mostly adds latency), from the first claim until nothing is pending; at ${settings.dropsAt.map((a) => `${a * 100} %`).join(" and ")} of the requests (or as soon after as two of the wallet's claim transactions are ready in the pool, not queued behind a gap), interval mining is paused, two of them are dropped with \`anvil_dropTransaction\` (anvil drops every later nonce of the wallet with them) and mining resumes; at ${settings.spikeAt * 100} % the next block's base fee is set to ${settings.spikeFactor}× the highest fee cap pending or quoted (on this idle devnet the base fee has decayed to a few wei while the tip is 1 gwei, so ${settings.spikeFactor}× the base fee alone would strand nothing; the multiple of the base fee is in the fault lines).`,
    `- **Checks**: requests (status, x-request-id, predicted token, transaction id), the API (each accepted claim's transaction by id once nothing is pending, or after a cap of ${settings.settleTimeoutS / 60} min), and the chain read straight from anvil: every block of the run scanned for the wallet's transactions (so a transaction the service never reported is seen), each recipient's \`balanceOf\` and the predicted token's \`ownerOf\`, the wallet's nonces. Lost = the predicted token is not the recipient's and the transaction is not confirmed; duplicated = a recipient got more than one mint transaction or more than one token; a nonce gap = a nonce between the start and end nonce that no mined transaction used, or a transaction stuck in the pool at the end.`,
    `- **Open files**: workerd's (both of wrangler dev's workerd processes), split into sockets and SQLite files, sampled every 2 s: the peak and the end must stay within 2 × the highest sample of the first ${Math.round(FILES_START_UNTIL * 100)} % of requests + 500. A leak of connections grows without bound; each live Durable Object holds three files, and those come and go with the backlog of pending transactions.`,
    `- **Verdict**: ${passed ? "**PASS**" : "**FAIL**"} — ${checks.length - failed.length} of ${checks.length} checks pass${failed.length ? ` (failing: ${failed.map((r) => r.name).join("; ")})` : ""}. Rates and latency are reported, not judged.`,
    ``,
    markdownTable(rows, HEADER),
    ``,
    ...lines.map((l) => `- ${l}`),
    ``,
    ...(problems.length
      ? [
          `Timelines of the first ${Math.min(3, problems.length)} of ${problems.length} problem claims (every broadcast of a transaction to the claim's recipient as the proxy saw it, t in ms since the proxy started; the D1 row; what the chain mined at each nonce tried):`,
          ``,
          "```",
          ...problems.slice(0, 3).map(formatTimeline),
          "```",
          ``,
        ]
      : []),
    ...(stuck ? [`At the end the wallet's transactions wait behind a nonce nothing holds (t in ms since the proxy started):`, ``, "```", stuck, "```", ``] : []),
    `Evidence of the last run (every request with its x-request-id, transaction id, hash and token; the API's transactions; the chain's wallet transactions; proxy stats; the wrangler log) is written to \`${evidenceDir}\` (git-ignored). Written by scripts/bench-soak.mjs; do not edit by hand.`,
  ].join("\n");
}

/** The history of the nonce the wallet is stuck at, when something is left in the pool. */
export const stuckNonce = (v, evidence) => (v.nonces.stuckInPool ? nonceHistory({ nonce: v.nonces.end, pooled: v.pooledTransactions, ...evidence }) : null);

/** The console's account of what went wrong: examples per kind, nonce anomalies, timelines. */
export function printFindings(v, problems, claimsBeganAt, stuck) {
  for (const [kind, examples] of Object.entries(v.examples)) {
    if (examples.length && kind !== "predictionMiss") console.log(`\n${kind} (${v.counts[kind]}), first ${examples.length}:\n${examples.map((e) => `  ${JSON.stringify(e)}`).join("\n")}`);
  }
  if (v.missingNonces.length || v.reusedNonces.length || v.others.length || v.strangers.length) {
    console.log(`\nnonces unused: ${v.missingNonces.slice(0, 20).join(", ")}; reused: ${v.reusedNonces.slice(0, 20).join(", ")}; other transactions: ${JSON.stringify(v.others.slice(0, 10))}; mints to unknown recipients: ${JSON.stringify(v.strangers.slice(0, 10))}`);
  }
  if (problems.length) console.log(`\nTimelines of the first ${Math.min(6, problems.length)} of ${problems.length} problem claims (t = ms since the proxy started; claims began at ${claimsBeganAt} ms):`);
  for (const p of problems.slice(0, 6)) console.log(formatTimeline(p));
  if (stuck) console.log(`\nThe wallet is stuck behind ${stuck.split("\n")[0].replace(":", "")}, whose history is:\n${stuck}`);
}
