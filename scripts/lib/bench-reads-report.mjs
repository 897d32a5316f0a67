// Output of `npm run bench:reads`: the console table, bench/results/reads.json and the reads
// section of docs/benchmarks.md (only the text between its markers is replaced).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { TARGET_RATIO } from "./bench-reads-cases.mjs";
import { analysis } from "./bench-reads-analysis.mjs";
import { ORDER_HASH_COLUMN } from "./bench-reads-sql.mjs";
import { ROOT } from "./bench-reads-stack.mjs";

const require = createRequire(import.meta.url);
const START = "<!-- bench:reads:start -->";
const END = "<!-- bench:reads:end -->";
const ms = (v) => (Number.isFinite(v) ? (v < 10 ? v.toFixed(2) : v.toFixed(1)) : "");
const int = (v) => (Number.isFinite(v) ? Math.round(v).toLocaleString("en-US") : "");

/** Checks one page of every case against the direct SQL: same ids, same listings, same total. */
export function compareWithFloor(samples, floor) {
  const problems = [];
  for (const { testCase, query, json } of samples) {
    const answers = testCase.statements(query).map(floor.run);
    const [first] = answers;
    // The page is the last statement.
    const rows = answers.at(-1);
    const data = testCase.kind === "asset" ? [json] : json.data;
    const got = data.map((a) => `${a.id}:${a.bestListing?.orderHash ?? "-"}`).join(",");
    const want = rows.map((r) => `${r[0]}:${r[ORDER_HASH_COLUMN] ?? "-"}`).join(",");
    if (got !== want) problems.push(`${testCase.name}: the service's page differs from the direct SQL's`);
    if (testCase.kind === "explore" && json.pagination.total !== first) problems.push(`${testCase.name}: total ${json.pagination.total} vs ${first}`);
  }
  return problems;
}

function judge({ testCase, wrangler: { loaded }, floor }) {
  if (testCase.kind === "probe") return {};
  const ratio = loaded.p95 / floor.p95;
  const pass = loaded.errors === 0 && loaded.p95 < testCase.target && ratio <= TARGET_RATIO;
  return { ratio, pass, target: `p95 < ${testCase.target} ms and <= ${TARGET_RATIO}x direct SQL p95` };
}

function version(pkg) {
  try {
    return require(`${pkg}/package.json`).version;
  } catch {
    return "?";
  }
}

export function report({ results, dataset, mismatches, whatIf, loadAvg, concurrency, devtools, write }) {
  // `loaded` / `sequential`: wrangler dev at concurrency 16 / 1, the figures the targets judge.
  const rows = results.map((r) => ({ ...r, ...r.wrangler, ...judge(r) }));
  const header = ["case", "n", "p50", "p95", "p99", "req/s", "c=1 p50", "direct p95", "SQL p50", "SQL p95", "SQL p99", "SQL q/s", "p95 ratio", "result"];
  const cells = rows.map((r) => [
    r.testCase.name, int(r.loaded.n), ms(r.loaded.p50), ms(r.loaded.p95), ms(r.loaded.p99), int(r.loaded.rps), ms(r.sequential.p50), ms(r.direct?.loaded.p95),
    ms(r.floor?.p50), ms(r.floor?.p95), ms(r.floor?.p99), int(r.floor?.qps),
    r.ratio ? r.ratio.toFixed(1) : "", r.pass === undefined ? "" : r.pass ? "PASS" : "FAIL",
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c) => c.map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i]))).join("  ");
  console.log(`\nservice: wrangler dev, concurrency ${concurrency}, ms; SQL: better-sqlite3 on the same file, sequential\n`);
  console.log(line(header));
  for (const c of cells) console.log(line(c));
  for (const problem of mismatches) console.log(`MISMATCH ${problem}`);
  console.log("\nwhat if (direct SQL p50, ms):");
  for (const w of whatIf) console.log(`  ${w.name}: ${ms(w.before.p50)} → ${ms(w.after.p50)}  (${w.change})`);
  const failed = rows.filter((r) => r.pass === false);
  console.log(failed.length ? `\n${failed.length} of ${rows.filter((r) => r.pass !== undefined).length} cases miss their target` : "\nall targets met");
  if (!write) return;

  const json = rows.flatMap((r) => {
    const base = r.testCase.name;
    const entry = (name, value, unit, baseline = null, extra = {}) => ({ name: `${base}: ${name}`, value: round(value), unit, baseline: round(baseline), ratio: baseline ? round(value / baseline) : null, target: null, ...extra });
    if (r.testCase.kind === "probe") return [entry("p50", r.loaded.p50, "ms"), entry("p95", r.loaded.p95, "ms"), entry("req/s", r.loaded.rps, "req/s")];
    return [
      entry("p95", r.loaded.p95, "ms", r.floor.p95, { target: r.target, pass: r.pass }),
      entry("p50", r.loaded.p50, "ms", r.floor.p50),
      entry("p99", r.loaded.p99, "ms", r.floor.p99),
      entry("req/s", r.loaded.rps, "req/s", r.floor.qps),
    ];
  });
  mkdirSync(path.join(ROOT, "bench/results"), { recursive: true });
  writeFileSync(path.join(ROOT, "bench/results/reads.json"), `${JSON.stringify(json, null, 2)}\n`);
  writeDoc(section(rows, dataset, mismatches, whatIf, loadAvg, concurrency, devtools));
}

const round = (v) => (v == null || !Number.isFinite(v) ? null : Math.round(v * 1000) / 1000);

function section(rows, dataset, mismatches, whatIf, loadAvg, concurrency, devtools) {
  const c = dataset.counts;
  const cpu = os.cpus();
  const judged = rows.filter((r) => r.pass !== undefined);
  const table = (head, body) => [`| ${head.join(" | ")} |`, `|${head.map((h, i) => (i === 0 || h === "target" || h === "change" ? "---" : "---:")).join("|")}|`, ...body.map((b) => `| ${b.join(" | ")} |`)];
  return [
    START,
    "## Reads (npm run bench:reads)",
    "",
    `Run ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC on ${cpu.length} cores (${cpu[0]?.model.trim() ?? "?"}), Node ${process.version}, wrangler ${version("wrangler")}, better-sqlite3 ${version("better-sqlite3")}. 1-minute load average ${loadAvg.map((v) => v.toFixed(1)).join(" → ")} (start → end of the HTTP runs; anything else running on the machine shares its cores). Written by scripts/bench-reads.mjs; do not edit by hand.`,
    "",
    `- **Dataset**: ${c.assets.toLocaleString("en-US")} ERC721 assets in ${c.collections} collections (power-law sizes, a quarter on chain 1946, ${dataset.collections.filter((x) => x.isVerified).length} verified), ${c.ownerships.toLocaleString("en-US")} ownerships over ${dataset.owners.toLocaleString("en-US")} owners, ${c.orders.toLocaleString("en-US")} orders: ${c.activeOrders.toLocaleString("en-US")} active on ${c.listedAssets.toLocaleString("en-US")} listed assets (${((100 * c.listedAssets) / c.assets).toFixed(0)} %; up to 5 per asset, 1 % of best listings expired but not yet swept) and the rest filled/cancelled/expired. Seeded straight into the D1 SQLite file wrangler persisted after \`wrangler d1 migrations apply --local\`; no ANALYZE (neither does a migrated D1).`,
    `- **Service**: \`wrangler dev\` on that state, ${devtools ? "its DevTools inspector attached (\`--devtools\`, as \`npm run dev\` runs it)" : "its DevTools inspector detached (scripts/lib/wrangler-devtools.mjs; \`--devtools\` keeps it attached)"}; requests rotate over ${dataset.apiKeys.length} API keys of one project (auth through the key cache, isolate memory then KV; the per-key rate limiter on every request, never reaching its 3,000/min), ${concurrency} concurrent keep-alive connections in a closed loop from a Node client on the same machine; each case warmed up with 100 requests, then up to 2,000 requests or 20 s. Parameters are drawn per request (random token, collection, owner, search term from the collection-name words). Latency = request start → last body byte. The concurrency-1 columns below (200 requests) show latency without queueing.`,
    `- **Direct SQL (floor)**: the SQL read-assets.ts makes drizzle send (the count; the page: its ids from the indexes in a subquery, then the LEFT JOINs to collections and the best order for those rows, only the columns the views use), hand-written in scripts/lib/bench-reads-sql.mjs and compared statement by statement with drizzle's output when written, on the same file with better-sqlite3 after wrangler stopped; sequential on one connection (the driver is synchronous), statements prepared once; one request = count + page, which D1 also runs one after the other. Each case's first page and total were checked against the service's answer: ${mismatches.length ? `**${mismatches.length} mismatch(es)**: ${mismatches.join("; ")}` : "identical"}.`,
    `- **Targets**: single asset p95 < 10 ms, explore p95 < 25 ms, and service p95 ≤ 3 × direct-SQL p95. ${judged.filter((r) => r.pass).length} of ${judged.length} cases pass.`,
    "",
    ...table(
      ["case", "n", "errors", "p50 ms", "p95 ms", "p99 ms", "req/s", "SQL p50", "SQL p95", "SQL p99", "SQL q/s", "p95 / SQL p95", "target", "result"],
      rows.map((r) => [r.testCase.name, int(r.loaded.n), int(r.loaded.errors), ms(r.loaded.p50), ms(r.loaded.p95), ms(r.loaded.p99), int(r.loaded.rps), ms(r.floor?.p50), ms(r.floor?.p95), ms(r.floor?.p99), int(r.floor?.qps), r.ratio ? r.ratio.toFixed(1) : "", r.target ? `< ${r.testCase.target} ms, ≤ ${TARGET_RATIO}×` : "", r.pass === undefined ? "" : r.pass ? "PASS" : "**FAIL**"]),
    ),
    "",
    "### Where the time goes",
    "",
    "c=1 = one request at a time (no queueing). *direct* = the same bundle on the same state served by Miniflare straight from workerd, without wrangler dev's ProxyWorker and its per-request log line to wrangler's Node process (a diagnostic only). SQL count / page = p50 of the two statements on the floor. CPU = CPU ms per request at concurrency 16 from /proc: workerd (both of wrangler dev's workerd processes), wrangler's Node processes, and the benchmark client; *direct* workerd alone; *(N errors)* after a direct p95 counts requests whose connection workerd reset (ECONNRESET) while overloaded, left out of its latencies (seen only on the direct runner, in the slow cases, when other work shared the machine). Query plans (EXPLAIN QUERY PLAN on the floor) follow the table.",
    "",
    ...table(
      ["case", "c=1 p50", "c=1 p95", "direct p95", "direct req/s", "direct c=1 p50", "SQL count p50", "SQL page p50", "CPU workerd", "CPU wrangler", "CPU client", "CPU direct workerd"],
      rows.map((r) => [
        r.testCase.name, ms(r.sequential.p50), ms(r.sequential.p95),
        `${ms(r.direct?.loaded.p95)}${r.direct?.loaded.errors ? ` (${r.direct.loaded.errors} errors)` : ""}`, int(r.direct?.loaded.rps), ms(r.direct?.sequential.p50),
        r.floor?.statements.length >= 2 ? ms(r.floor.statements[0].p50) : "", r.floor ? ms(r.floor.statements.at(-1).p50) : "",
        ms(r.cpu?.workerd), ms(r.cpu?.wrangler), ms(r.cpu?.client), ms(r.direct?.cpu?.workerd),
      ]),
    ),
    "",
    "Query plans (page query; count query):",
    "",
    ...rows.filter((r) => r.plan).map((r) => `- ${r.testCase.name}: ${r.plan.slice().reverse().map((p) => `\`${p}\``).join(" ; ")}`),
    "",
    "### What if",
    "",
    "Candidate fixes timed with the same driver on a copy of the database (indexes added to the copy only), 20 sequential runs each; *same rows* = the candidate returned exactly today's page or count.",
    "",
    ...table(
      ["query", "change", "today p50", "today p95", "candidate p50", "candidate p95", "same rows"],
      whatIf.map((w) => [w.name, w.change, ms(w.before.p50), ms(w.before.p95), ms(w.after.p50), ms(w.after.p95), w.same === null ? "" : w.same ? "yes" : "**no**"]),
    ),
    "",
    analysis(rows, whatIf),
    END,
  ].join("\n");
}

function writeDoc(md) {
  const docPath = path.join(ROOT, "docs/benchmarks.md");
  let doc = existsSync(docPath) ? readFileSync(docPath, "utf8") : "# Benchmarks\n";
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  doc = start >= 0 && end > start ? `${doc.slice(0, start)}${md}${doc.slice(end + END.length)}` : `${doc.trimEnd()}\n\n${md}\n`;
  writeFileSync(docPath, doc);
}
