// The layer rules of .dependency-cruiser.cjs hold for src/, and fail on a planted forbidden
// import: test/layers/fixture/src has one of each kind beside imports the rules allow.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/** dependency-cruiser's CLI over `src` of `cwd`, with the repository's rules. */
function cruise(cwd: string): Violation[] {
  const run = spawnSync(
    process.execPath,
    [path.join(root, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs"), "src", "--config", path.join(root, ".dependency-cruiser.cjs"), "--output-type", "json"],
    { cwd, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (run.status !== 0) throw new Error(`dependency-cruiser failed: ${run.stderr}`);
  return (JSON.parse(run.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const readable = (violations: Violation[]) => violations.map(({ rule, from, to }) => `${rule.name}: ${from} -> ${to}`).sort();

describe("the layer rules", () => {
  it("hold for src/", () => {
    expect(readable(cruise(root))).toEqual([]);
  });

  it("fail on each forbidden import planted in a fixture, and on nothing else", () => {
    expect(readable(cruise(path.join(root, "test/layers/fixture")))).toEqual([
      "chain-imports-only-chain: src/chain/leaks.ts -> src/lib/log.ts",
      "durable-objects-reach-others-through-services: src/durable-objects/watcher.ts -> src/chain/client.ts",
      "durable-objects-reach-others-through-services: src/durable-objects/watcher.ts -> src/durable-objects/sequencer.ts",
      "engine-imports-no-feature: src/services/engine/core.ts -> src/services/drops/drop.ts",
      "lib-imports-no-services-or-routes: src/lib/knows-feature.ts -> src/services/drops/drop.ts",
      "services-import-no-hono: src/services/drops/http.ts -> ../../../node_modules/hono/dist/types/index.d.ts",
      "services-import-no-routes: src/services/drops/http.ts -> src/routes/drops.ts",
      "services-know-durable-objects-as-types-only: src/services/stubs.ts -> src/durable-objects/sequencer.ts",
      "viem-only-in-chain: src/services/drops/encodes.ts -> ../../../node_modules/viem/_types/index.d.ts",
    ]);
  });
});
