// npm run contracts:build — compiles contracts/ and seaport-core with solc 0.8.24 and writes
// the TypeScript artifacts. `--check` only compares and exits 1 when a file is stale.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT, buildArtifactFiles } from "./lib/solc-build.mjs";

const check = process.argv.includes("--check");
const started = Date.now();
const files = buildArtifactFiles();
let stale = 0;
for (const [rel, content] of Object.entries(files)) {
  const abs = path.join(ROOT, rel);
  let current = null;
  try {
    current = readFileSync(abs, "utf8");
  } catch {}
  if (current === content) continue;
  if (check) {
    console.error(`stale: ${rel}`);
    stale++;
  } else {
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, content);
    console.log(`wrote ${rel}`);
  }
}
console.log(`contracts:build ${check ? "check" : "done"} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
if (stale) process.exit(1);
