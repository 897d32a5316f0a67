#!/usr/bin/env node
// Checks the repository's decision references, doc links and wording (scripts/lib/doc-refs.mjs).
// `node scripts/check-doc-refs.mjs` prints each problem as file:line and exits 1 if there is one;
// the history phrases of files on the pending list (scripts/doc-refs-pending.txt) are printed as
// a reminder and do not fail it.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { checkDocRefs, pendingHistory } from "./lib/doc-refs.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const problems = checkDocRefs(root);
const pending = pendingHistory(root);

for (const { file, line, kind, message } of problems) console.log(`${file}:${line}: ${kind}: ${message}`);
if (pending.length > 0) {
  console.log(`\n${pending.length} history phrase(s) in files on scripts/doc-refs-pending.txt, to clear:`);
  for (const { file, line, message } of pending) console.log(`  ${file}:${line}: ${message}`);
}
console.log(problems.length === 0 ? "\ndoc references: ok" : `\ndoc references: ${problems.length} problem(s)`);
process.exit(problems.length === 0 ? 0 : 1);
