// The committed artifacts must be what the sources compile to (npm run contracts:build).
import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { ROOT, buildArtifactFiles } from "../../scripts/lib/solc-build.mjs";

it("committed artifacts match a fresh compile", () => {
  const files = buildArtifactFiles();
  expect(Object.keys(files).length).toBeGreaterThanOrEqual(7);
  for (const [rel, content] of Object.entries(files)) {
    const committed = readFileSync(path.join(ROOT, rel), "utf8");
    // A plain boolean keeps a mismatch report short (the files hold bytecode).
    expect(committed === content, `${rel} is stale: run npm run contracts:build`).toBe(true);
  }
});
