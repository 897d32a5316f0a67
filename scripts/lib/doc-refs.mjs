// The repository's references, checked: every "decision N" (or "decisions.md §N") names a record
// or a folded number of docs/decisions.md, every relative link in the docs reaches a file and,
// with a #fragment, a heading of it, and no text narrates past work (scripts/lib/history-words.mjs).
// Run by scripts/check-doc-refs.mjs and by test/docs/doc-refs.test.ts (so by `npm test`).
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { HISTORY_WORDS } from "./history-words.mjs";

/** Where references and history phrases are looked for (paths relative to the repository root). */
export const SCANNED = [
  "src",
  "test",
  "scripts",
  "docs",
  "contracts",
  "client",
  "migrations",
  "README.md",
  "CONTRIBUTING.md",
  "wrangler.toml",
  "vitest.config.ts",
  "drizzle.config.ts",
  "package.json",
  ".dev.vars.example",
];
/** Markdown whose relative links must resolve. */
export const LINKED = ["docs", "README.md", "CONTRIBUTING.md"];
export const DECISIONS = "docs/decisions.md";
/** Files allowed to hold history phrases for a while, one path (or folder/) a line, `#` comments. */
export const PENDING = "scripts/doc-refs-pending.txt";
/** The word list itself and the pending list name the phrases they are about. */
const WORD_LIST_FILES = new Set(["scripts/lib/history-words.mjs", PENDING]);
const SKIPPED_DIRS = new Set(["node_modules", ".git", ".wrangler", ".dev", "test-results", "dist", "coverage"]);
const TEXT = /\.(?:ts|tsx|mts|cts|js|mjs|cjs|json|md|sql|sol|toml|sh|ya?ml|txt|html|css|example)$/;

/**
 * @typedef {{ file: string, line: number, kind: "reference" | "link" | "history" | "decisions", message: string }} Problem
 */

/** @param {string} root @returns {Problem[]} */
export function checkDocRefs(root) {
  const pending = readPending(root);
  const ids = decisionIds(root);
  /** @type {Problem[]} */
  const problems = [...ids.problems];
  for (const file of listFiles(root, SCANNED)) {
    const text = readFileSync(join(root, file), "utf8");
    problems.push(...referenceProblems(file, text, ids));
    if (!WORD_LIST_FILES.has(file) && !isPending(file, pending)) problems.push(...historyProblems(file, text));
  }
  for (const file of listFiles(root, LINKED).filter((name) => name.endsWith(".md"))) {
    problems.push(...linkProblems(root, file, readFileSync(join(root, file), "utf8")));
  }
  return problems;
}

/** The history phrases in the pending files: what the lead still has to clear. @param {string} root */
export function pendingHistory(root) {
  const pending = readPending(root);
  return listFiles(root, SCANNED)
    .filter((file) => isPending(file, pending))
    .flatMap((file) => historyProblems(file, readFileSync(join(root, file), "utf8")));
}

/** Record numbers (`### N. Title`) and folded numbers (`- N → folded into [M](…)`) of decisions.md. */
export function decisionIds(root) {
  /** @type {Problem[]} */
  const problems = [];
  const path = join(root, DECISIONS);
  if (!existsSync(path)) return { records: new Set(), folded: new Map(), problems: [{ file: DECISIONS, line: 1, kind: "decisions", message: "missing" }] };
  const text = readFileSync(path, "utf8");
  const records = new Set();
  const folded = new Map();
  for (const match of text.matchAll(/^#{2,4} (\d+)\. /gm)) {
    const id = Number(match[1]);
    if (records.has(id)) problems.push({ file: DECISIONS, line: lineOf(text, match.index), kind: "decisions", message: `record ${id} appears twice` });
    records.add(id);
  }
  for (const match of text.matchAll(/^- (\d+) → folded into \[(\d+)\]/gm)) {
    const id = Number(match[1]);
    const into = Number(match[2]);
    const line = lineOf(text, match.index);
    if (records.has(id) || folded.has(id)) problems.push({ file: DECISIONS, line, kind: "decisions", message: `${id} is both a record and folded, or folded twice` });
    folded.set(id, into);
  }
  for (const [id, into] of folded) {
    if (!records.has(into)) problems.push({ file: DECISIONS, line: 1, kind: "decisions", message: `${id} is folded into ${into}, which is no record` });
  }
  return { records, folded, problems };
}

/** Every decision number the text cites, with where. @param {string} text */
export function decisionReferences(text) {
  const found = [];
  // A comment wrapped between the word and its number ("decision\n  // 100") still counts.
  const list = /\bdecisions?\s+(?:(?:\/\/|\*|#|--)\s+)?(\d+(?:\s*(?:,|–|-|and|or|to)\s*\d+)*)/gi;
  for (const match of text.matchAll(list)) {
    for (const id of expandList(match[1] ?? "")) found.push({ id, index: match.index });
  }
  for (const match of text.matchAll(/\bdecisions(?:\.md)?`?\s*§\s*(\d+)/gi)) found.push({ id: Number(match[1]), index: match.index });
  return found;
}

/** "74, 78 and 79" → 74, 78, 79; "83–90" → 83…90. @param {string} list */
function expandList(list) {
  const ids = [];
  for (const part of list.split(/\s*(?:,|and|or)\s*/)) {
    const range = /^(\d+)\s*(?:–|-|to)\s*(\d+)$/.exec(part.trim());
    if (range) {
      for (let id = Number(range[1]); id <= Number(range[2]); id++) ids.push(id);
    } else if (/^\d+$/.test(part.trim())) ids.push(Number(part.trim()));
  }
  return ids;
}

/** @param {string} file @param {string} text @param {{ records: Set<number>, folded: Map<number, number> }} ids */
function referenceProblems(file, text, ids) {
  return decisionReferences(text)
    .filter(({ id }) => !ids.records.has(id) && !ids.folded.has(id))
    .map(({ id, index }) => ({ file, line: lineOf(text, index), kind: /** @type {const} */ ("reference"), message: `decision ${id} is no record of ${DECISIONS}` }));
}

/** @param {string} file @param {string} text */
export function historyProblems(file, text) {
  const problems = [];
  for (const { pattern, instead } of HISTORY_WORDS) {
    for (const match of text.matchAll(new RegExp(pattern.source, "gi"))) {
      problems.push({ file, line: lineOf(text, match.index), kind: /** @type {const} */ ("history"), message: `"${match[0]}" narrates past work: ${instead}` });
    }
  }
  return problems;
}

/** @param {string} root @param {string} file @param {string} text */
function linkProblems(root, file, text) {
  const problems = [];
  const prose = withoutCode(text);
  const targets = [
    ...[...prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((match) => ({ target: match[1] ?? "", index: match.index })),
    ...[...prose.matchAll(/^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((match) => ({ target: match[1] ?? "", index: match.index })),
  ];
  for (const { target, index } of targets) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:…
    const [path = "", fragment] = target.split("#", 2);
    const resolved = path === "" ? join(root, file) : resolve(dirname(join(root, file)), decodeURIComponent(path));
    const line = lineOf(text, index);
    if (!existsSync(resolved)) {
      problems.push({ file, line, kind: /** @type {const} */ ("link"), message: `${target}: no such file` });
      continue;
    }
    if (fragment && resolved.endsWith(".md") && !headingAnchors(readFileSync(resolved, "utf8")).has(fragment.toLowerCase())) {
      problems.push({ file, line, kind: /** @type {const} */ ("link"), message: `${target}: no heading with that anchor in ${relative(root, resolved)}` });
    }
  }
  return problems;
}

/** The anchors GitHub gives a markdown file's headings (and explicit `id`/`name` anchors). @param {string} text */
export function headingAnchors(text) {
  const anchors = new Set();
  const seen = new Map();
  for (const match of withoutCode(text).matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = slug(match[1] ?? "");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add((match[1] ?? "").toLowerCase());
  return anchors;
}

/** GitHub's heading slug: the rendered text, lower-cased, punctuation dropped, spaces to hyphens. @param {string} heading */
export function slug(heading) {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, "")
    .replace(/ /g, "-");
}

/** Fenced blocks and inline code blanked out, line and column positions kept. @param {string} text */
function withoutCode(text) {
  const blank = (/** @type {string} */ part) => part.replace(/[^\n]/g, " ");
  return text.replace(/^ {0,3}(```|~~~)[^\n]*\n[\s\S]*?^ {0,3}\1[^\n]*$/gm, blank).replace(/`[^`\n]*`/g, blank);
}

/** @param {string} text @param {number | undefined} index */
function lineOf(text, index) {
  let line = 1;
  for (let at = 0; at < (index ?? 0); at++) if (text.charCodeAt(at) === 10) line++;
  return line;
}

/** Text files under the given roots, as forward-slash paths relative to `root`. @param {string} root @param {string[]} roots */
export function listFiles(root, roots) {
  const files = [];
  const walk = (/** @type {string} */ path) => {
    const full = join(root, path);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const name of readdirSync(full).sort()) if (!SKIPPED_DIRS.has(name)) walk(path === "" ? name : `${path}/${name}`);
    } else if (TEXT.test(path) || roots.includes(path)) files.push(path.split(sep).join("/"));
  };
  for (const path of roots) walk(path);
  return files;
}

/** @param {string} root */
function readPending(root) {
  const path = join(root, PENDING);
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .map((line) => line.replace(/#.*/, "").trim())
    .filter(Boolean);
}

/** @param {string} file @param {string[]} pending */
function isPending(file, pending) {
  return pending.some((entry) => (entry.endsWith("/") ? file.startsWith(entry) : file === entry));
}
