// The reference check (scripts/lib/doc-refs.mjs) on this repository, and on a scratch repository
// with one planted fault of each kind, to show it fails on each. The faults are built from
// pieces and from the word list's own examples, so this file holds none of them.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { checkDocRefs, decisionReferences, slug } from "../../scripts/lib/doc-refs.mjs";
import { HISTORY_WORDS } from "../../scripts/lib/history-words.mjs";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "../..");
const CITE = "decision"; // with a number: a reference the check resolves

const DECISIONS = [
  "# Decision records",
  "",
  "- [1. One rule](#1-one-rule)",
  "",
  "### Folded numbers",
  "",
  "- 2 → folded into [1](#1-one-rule)",
  "",
  "## Area",
  "",
  "### 1. One rule",
  "",
  `- **Decision:** see ${CITE} 2.`,
  "",
].join("\n");

const scratches: string[] = [];
afterEach(() => {
  for (const dir of scratches.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A scratch repository with valid docs, plus the given files. */
function scratch(files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), "doc-refs-"));
  scratches.push(root);
  const all: Record<string, string> = {
    "docs/decisions.md": DECISIONS,
    "docs/guide.md": "# Guide\n\n## Running it\n\nSee [the rule](decisions.md#1-one-rule) and [running](#running-it).\n",
    "README.md": `# Readme\n\nRead [the guide](docs/guide.md#running-it) and [CONTRIBUTING.md](CONTRIBUTING.md).\n`,
    "CONTRIBUTING.md": "# Contributing\n",
    "src/a.ts": `// The rule of ${CITE}s 1 and 2, and docs/decisions.md §${1}.\nexport const a = 1;\n`,
    ...files,
  };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("the repository's references", () => {
  it("all resolve, and no text narrates past work outside the pending list", () => {
    expect(checkDocRefs(REPO)).toEqual([]);
  });
});

describe("the check", () => {
  it("passes a scratch repository whose references resolve", () => {
    expect(checkDocRefs(scratch())).toEqual([]);
  });

  it("fails on a reference to no record, in either spelling", () => {
    const problems = checkDocRefs(scratch({ "test/b.test.ts": `// ${CITE} 7, and decisions.md §${9}\n` }));
    expect(problems).toEqual([
      expect.objectContaining({ file: "test/b.test.ts", line: 1, kind: "reference", message: expect.stringContaining("7") }),
      expect.objectContaining({ file: "test/b.test.ts", line: 1, kind: "reference", message: expect.stringContaining("9") }),
    ]);
  });

  it("fails on a link to a missing file and to a missing heading", () => {
    const problems = checkDocRefs(
      scratch({ "docs/other.md": "# Other\n\nSee [nothing](missing.md), [no heading](guide.md#running) and [here](#nowhere).\n" }),
    );
    expect(problems.map(({ file, line, kind }) => ({ file, line, kind }))).toEqual([
      { file: "docs/other.md", line: 3, kind: "link" },
      { file: "docs/other.md", line: 3, kind: "link" },
      { file: "docs/other.md", line: 3, kind: "link" },
    ]);
  });

  it("ignores links inside code", () => {
    expect(checkDocRefs(scratch({ "docs/code.md": "# Code\n\n```md\n[x](missing.md)\n```\n\n`[y](gone.md)`\n" }))).toEqual([]);
  });

  it("fails on a folded number whose record is gone", () => {
    const problems = checkDocRefs(scratch({ "docs/decisions.md": DECISIONS.replace("- 2 → folded into [1]", "- 2 → folded into [5]") }));
    expect(problems).toContainEqual(expect.objectContaining({ kind: "decisions", message: expect.stringContaining("5") }));
  });

  it.each(HISTORY_WORDS.map((word) => [word.example, word]))("fails on %j", (example) => {
    const problems = checkDocRefs(scratch({ "contracts/Planted.sol": `// ok\n// ${example}\n` }));
    expect(problems).toEqual([expect.objectContaining({ file: "contracts/Planted.sol", line: 2, kind: "history" })]);
  });

  it("lets a file on the pending list keep its phrases until the list is emptied", () => {
    const planted = { "src/engine/old.ts": `// ${HISTORY_WORDS[0]!.example}\n` };
    expect(checkDocRefs(scratch(planted))).toHaveLength(1);
    expect(checkDocRefs(scratch({ ...planted, "scripts/doc-refs-pending.txt": "# being rewritten\nsrc/engine/\n" }))).toEqual([]);
  });
});

describe("its parts", () => {
  it("expands lists and ranges of decision numbers", () => {
    const ids = (text: string) => decisionReferences(text).map(({ id }) => id);
    expect(ids(`${CITE}s 74, 78 and 79; ${CITE}s 83–85; ${CITE} 100`)).toEqual([74, 78, 79, 83, 84, 85, 100]);
    expect(ids(`${CITE} records; a ${CITE} about N`)).toEqual([]);
    expect(ids(`// the rule (${CITE}\n  // 100) and (${CITE}\n * 7)`)).toEqual([100, 7]);
  });

  it("makes GitHub's heading anchors", () => {
    expect(slug("89. Stored links are http(s), ipfs:// or ar://")).toBe("89-stored-links-are-https-ipfs-or-ar");
    expect(slug("35. bench:claims keeps the service's local state in RAM")).toBe("35-benchclaims-keeps-the-services-local-state-in-ram");
    expect(slug("A `code` heading with [a link](x.md)")).toBe("a-code-heading-with-a-link");
  });
});
