// Output of the benchmarks: a console table, the same table in Markdown, a JSON results file
// and a generated section of docs/benchmarks.md replaced between its markers (other sections
// are left alone; the section is appended when the markers are missing).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./stack.mjs";

const HEADER = ["figure", "value", "unit", "baseline (raw)", "ratio", "target", "result"];

export const fmt = (v, digits = 1) =>
  v == null ? "" : typeof v === "number" ? v.toLocaleString("en-US", { maximumFractionDigits: Number.isInteger(v) ? 0 : digits }) : String(v);

/** { name, value, unit, baseline, ratio, target, pass } with the ratio computed when both sides exist. */
export function row(name, value, unit, { baseline = null, target = null, pass = null, digits } = {}) {
  // A baseline that prints as 0 (a few µs of CPU) would give a meaningless ratio of millions.
  const shownBaseline = round(baseline, digits);
  const ratio = typeof value === "number" && typeof baseline === "number" && shownBaseline !== 0 ? Math.round((value / baseline) * 1000) / 1000 : null;
  return { name, value: round(value, digits), unit, baseline: shownBaseline, ratio, target, pass };
}

const round = (v, digits = 1) => (typeof v === "number" && !Number.isInteger(v) ? Math.round(v * 10 ** digits) / 10 ** digits : v);
const cells = (r) => [r.name, fmt(r.value), r.unit, fmt(r.baseline), r.ratio == null ? "" : r.ratio.toFixed(3), r.target ?? "", r.pass == null ? "" : r.pass ? "PASS" : "FAIL"];

export function printTable(rows, header = HEADER) {
  const all = rows.map(cells);
  const widths = header.map((h, i) => Math.max(h.length, ...all.map((c) => c[i].length)));
  const line = (c) => c.map((v, i) => (i === 1 || i === 3 || i === 4 ? v.padStart(widths[i]) : v.padEnd(widths[i]))).join("  ").trimEnd();
  console.log(line(header));
  for (const c of all) console.log(line(c));
}

export function markdownTable(rows, header = HEADER) {
  return [
    `| ${header.join(" | ")} |`,
    `|${header.map((_, i) => (i === 1 || i === 3 || i === 4 ? "---:" : "---")).join("|")}|`,
    ...rows.map((r) => `| ${cells(r).join(" | ")} |`),
  ].join("\n");
}

/** Replaces `<!-- name:start -->…<!-- name:end -->` in a repo doc with `body` (appends it if absent). */
export function writeDocSection(relPath, name, body) {
  const docPath = path.join(ROOT, relPath);
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const block = `${start}\n${body.trim()}\n${end}`;
  let doc = existsSync(docPath) ? readFileSync(docPath, "utf8") : "# Benchmarks\n";
  const at = doc.indexOf(start);
  const until = doc.indexOf(end);
  if (at !== -1 && until > at) doc = doc.slice(0, at) + block + doc.slice(until + end.length);
  else doc = `${doc.trimEnd()}\n\n${block}\n`;
  writeFileSync(docPath, doc);
}

export function writeResults(relPath, rows) {
  const file = path.join(ROOT, relPath);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(rows, null, 2)}\n`);
}
