#!/usr/bin/env node
// Copies the API reference's browser bundle (swagger-ui-dist, pinned in package.json) from
// node_modules into build/assets/, the Workers static-assets directory wrangler.toml names, so
// /docs loads nothing from a CDN: the Worker serves the page (src/routes/docs/) and the assets
// layer serves these files under /docs/swagger-ui/. Run by wrangler itself before `wrangler dev`
// and `wrangler deploy` ([build] in wrangler.toml) and by vitest.config.ts before the tests.
// build/ is git-ignored: the files come from the lockfile's package, never from the repository.
import { copyFileSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const ASSETS_DIR = path.join(ROOT, "build", "assets");
/** Where the page (src/routes/docs/docs.page.ts) loads them from. */
const TARGET = path.join(ASSETS_DIR, "docs", "swagger-ui");
const FILES = ["swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"];

/**
 * Writes build/assets/docs/swagger-ui/ and returns the package version it copied. Each file is
 * copied beside its place and renamed over it, so a wrangler dev or a test run reading the
 * directory meanwhile never sees half a file.
 */
export function buildDocsAssets() {
  const require = createRequire(path.join(ROOT, "package.json"));
  const packageJson = require.resolve("swagger-ui-dist/package.json");
  const source = path.dirname(packageJson);
  mkdirSync(TARGET, { recursive: true });
  for (const file of FILES) {
    const partial = path.join(TARGET, `.${file}.${process.pid}.partial`);
    copyFileSync(path.join(source, file), partial);
    renameSync(partial, path.join(TARGET, file));
  }
  return JSON.parse(readFileSync(packageJson, "utf8")).version;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const version = buildDocsAssets();
  console.log(`docs assets: swagger-ui-dist ${version} -> ${path.relative(ROOT, TARGET)}/`);
}
