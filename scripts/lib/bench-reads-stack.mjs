// wrangler for `npm run bench:reads`: local migrations, locating the D1 SQLite file wrangler
// persists, and `wrangler dev` on a pre-seeded state without anvil. scripts/lib/stack.mjs's
// startStack() wipes its state dir, applies migrations and starts anvil + the devnet contracts
// in one go, so it cannot serve a database seeded beforehand; reads need no chain anyway.
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./anvil.mjs";
import { wranglerDevEnv } from "./wrangler-devtools.mjs";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const WRANGLER_BIN = path.join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
const CHILD_ENV = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

const started = new Set();
// Nothing this script started may outlive it, whatever way it exits.
process.on("exit", () => {
  for (const child of started) killGroup(child, "SIGKILL");
});

/** wrangler runs in its own process group (detached) so workerd goes down with it. */
function killGroup(child, sig) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, sig);
  } catch {
    child.kill(sig);
  }
}

/** Runs the wrangler CLI to completion; resolves its combined output. */
export function wrangler(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WRANGLER_BIN, ...args], { cwd: ROOT, env: CHILD_ENV, stdio: ["ignore", "pipe", "pipe"], detached: true });
    started.add(child);
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("exit", (code) => {
      started.delete(child);
      code === 0 ? resolve(output) : reject(new Error(`wrangler ${args.join(" ")} exited ${code}:\n${output.slice(-4000)}`));
    });
  });
}

export const applyMigrations = (persistDir) => wrangler(["d1", "migrations", "apply", "DB", "--local", "--persist-to", persistDir]);

/**
 * The SQLite file miniflare keeps the DB binding in: `<persist>/v3/d1/miniflare-D1DatabaseObject/
 * <64 hex>.sqlite` (metadata.sqlite next to it is miniflare's own). Only one D1 binding exists.
 */
export function d1SqliteFile(persistDir) {
  const dir = path.join(persistDir, "v3", "d1", "miniflare-D1DatabaseObject");
  const files = existsSync(dir) ? readdirSync(dir).filter((name) => /^[0-9a-f]{64}\.sqlite$/.test(name)) : [];
  if (files.length !== 1) throw new Error(`expected one D1 database file in ${dir}, found ${files.length}: has miniflare's layout changed?`);
  return path.join(dir, files[0]);
}

/**
 * Bundles the Worker once, as `wrangler deploy` would, into `<persistDir>/bundle` next to a copy
 * of wrangler.toml whose `main` is that bundle. Both runners serve this snapshot: `wrangler dev`
 * on the repository's wrangler.toml would watch src/ and reload mid-run whenever anyone edits a
 * file, and both runners then measure the same code.
 */
export async function bundleWorker(persistDir) {
  const dir = path.join(persistDir, "bundle");
  await wrangler(["deploy", "--dry-run", "--outdir", dir]);
  const toml = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
  if (!/^main = .*$/m.test(toml)) throw new Error("wrangler.toml has no top-level main = line to point at the bundle");
  const config = path.join(dir, "wrangler.toml");
  writeFileSync(config, toml.replace(/^main = .*$/m, 'main = "index.js"').replace(/^migrations_dir = .*$/m, `migrations_dir = ${JSON.stringify(path.join(ROOT, "migrations"))}`));
  return { dir, config };
}

/** Starts `wrangler dev` on `persistDir` with `vars` (secrets included) passed as --var; `devtools` as scripts/lib/wrangler-devtools.mjs says. */
export async function startWranglerDev({ persistDir, bundle, vars, devtools, timeoutMs = 60_000 }) {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const varArgs = Object.entries(vars).flatMap(([key, value]) => ["--var", `${key}:${value}`]);
  const inspectorPort = await freePort();
  const child = spawn(
    process.execPath,
    [WRANGLER_BIN, "dev", "--config", bundle.config, "--no-bundle", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspectorPort), "--persist-to", persistDir, ...varArgs, "--show-interactive-dev-session=false"],
    { cwd: ROOT, env: wranglerDevEnv(CHILD_ENV, { devtools }), stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  started.add(child);
  let log = "";
  const capture = (chunk) => (log = (log + chunk).slice(-20_000));
  child.stdout.on("data", capture);
  child.stderr.on("data", capture);

  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => (started.delete(child), resolve()));
      killGroup(child, "SIGTERM");
      setTimeout(() => killGroup(child, "SIGKILL"), 3000).unref();
    });

  // Any HTTP answer means the Worker is up: /health is 200 "degraded" here (no chain behind CHAINS).
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${log}`);
    try {
      await (await fetch(`${baseUrl}/health`)).arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`wrangler dev did not answer on ${baseUrl} within ${timeoutMs / 1000} s:\n${log}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  return { baseUrl, pid: child.pid, stop, log: () => log };
}

/**
 * The same Worker on the same state, served by Miniflare straight from workerd: no wrangler dev
 * ProxyWorker in front and no per-request log line posted back to wrangler's Node process. Only
 * a diagnostic (how much of a request wrangler dev itself adds); the targets are judged on
 * wrangler dev. Bindings come from the bundle's wrangler.toml through wrangler's own
 * unstable_getMiniflareWorkerOptions.
 */
export async function startWorkerdDirect({ persistDir, bundle, vars }) {
  const { unstable_getMiniflareWorkerOptions } = await import("wrangler");
  // miniflare is wrangler's dependency, not ours: resolve it from wrangler so the versions match.
  const { Miniflare } = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"))("miniflare");
  const { workerOptions } = unstable_getMiniflareWorkerOptions(bundle.config);
  const mf = new Miniflare({
    ...workerOptions,
    bindings: { ...workerOptions.bindings, ...vars },
    modules: true,
    scriptPath: path.join(bundle.dir, "index.js"),
    modulesRoot: bundle.dir,
    defaultPersistRoot: path.join(persistDir, "v3"),
    d1Persist: true,
    kvPersist: true,
    r2Persist: true,
    durableObjectsPersist: true,
    logRequests: false,
    host: "127.0.0.1",
    port: 0,
  });
  const baseUrl = (await mf.ready).toString().replace(/\/$/, "");
  return { baseUrl, stop: () => mf.dispose() };
}
