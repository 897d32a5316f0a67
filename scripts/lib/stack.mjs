// A complete local Mintyard: anvil, the devnet contracts, local D1 migrations and `wrangler dev`
// pointed at that anvil. Shared by `npm run dev` and the benchmarks so both run the service the
// same way. Every process started here is tracked, and stopChildren() (or stack.stop()) ends
// each one's whole process group: wrangler leaves a workerd behind otherwise.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { english, generateMnemonic } from "viem/accounts";
import { DEVNET_CHAIN_ID, freePort, startAnvil } from "./anvil.mjs";
import { deployDevnet, devnetChains } from "./devnet.mjs";
import { wranglerDevEnv } from "./wrangler-devtools.mjs";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const WRANGLER_BIN = path.join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
const DEFAULT_DEV_VARS = path.join(ROOT, ".dev.vars");
export const CHILD_ENV = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
const ETHER = 10n ** 18n;

const children = new Set();
/** Children started as process-group leaders (wrangler and the workerd it spawns). */
const leaders = new WeakSet();

/** Signals the child's whole process group when it leads one (wrangler), else just the child. */
export function signal(child, name) {
  try {
    process.kill(-child.pid, name);
  } catch {
    try {
      child.kill(name);
    } catch {
      // already gone
    }
  }
}

const running = (child) => child.exitCode === null && child.signalCode === null;

function stopProcesses(list) {
  return Promise.all(
    list.map(
      (child) =>
        new Promise((resolve) => {
          children.delete(child);
          if (!running(child)) {
            // A leader that died on its own (wrangler out of memory) can leave its group behind
            // (workerd): signal the group anyway; ESRCH when nothing is left is ignored.
            if (leaders.has(child)) {
              try {
                process.kill(-child.pid, "SIGKILL");
              } catch {
                // no such group
              }
            }
            return resolve();
          }
          child.once("exit", resolve);
          signal(child, "SIGTERM");
          setTimeout(() => running(child) && signal(child, "SIGKILL"), 3000).unref();
        }),
    ),
  );
}

/** Stops every process any stack of this Node process started (Ctrl-C and error paths). */
export const stopChildren = () => stopProcesses([...children]);

// Last resort when the script dies without a clean stop (an uncaught error, process.exit):
// nothing started here may outlive it.
process.on("exit", () => {
  for (const child of children) if (running(child)) signal(child, "SIGKILL");
});

/** Returns a `step(label)` that prints "• label… done in 1.2 s (detail)", as `npm run dev` does. */
export function stepPrinter(out = process.stdout) {
  return (label) => {
    const started = Date.now();
    out.write(`• ${label}…`);
    return (detail = "") => out.write(` done in ${((Date.now() - started) / 1000).toFixed(1)} s${detail ? ` (${detail})` : ""}\n`);
  };
}
const silentStep = () => () => {};

export async function portIsFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

function run(command, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: CHILD_ENV, stdio: ["ignore", "pipe", "pipe"] });
    children.add(child);
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("exit", (code) => {
      children.delete(child);
      code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(" ")} exited ${code}:\n${output}`));
    });
  });
}

async function waitForHealth(baseUrl, wrangler, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (wrangler.exitCode !== null) throw new Error("wrangler dev exited before it was ready");
    try {
      const response = await fetch(`${baseUrl}/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`wrangler dev did not answer on ${baseUrl} within ${timeoutMs / 1000} s`);
}

/**
 * Starts the stack: startChain, then startService on it. Options: those of both, plus
 * anvilOptions for startAnvil. stop() ends the service and the chain.
 */
export async function startStack({ anvilOptions = {}, step = silentStep, ...serviceOptions } = {}) {
  const chain = await startChain({ anvilOptions, step });
  const service = await startService({ ...chain, step, ...serviceOptions });
  return {
    ...chain,
    ...service,
    stop: async () => {
      await service.stop();
      await chain.stop();
    },
  };
}

/** anvil (chain 1868, prague, `blockTime` s blocks unless told otherwise) with the devnet contracts deployed. */
export async function startChain({ anvilOptions = {}, step = silentStep } = {}) {
  const blockTime = anvilOptions.blockTime ?? 1;
  let done = step(`Starting anvil (chain ${DEVNET_CHAIN_ID}, ${blockTime} s blocks, prague${anvilOptions.gasLimit ? `, gas limit ${anvilOptions.gasLimit}` : ""})`);
  const anvil = await startAnvil({ blockTime, ...anvilOptions });
  children.add(anvil.process);
  done(anvil.url);

  done = step("Deploying Seaport 1.6, ConduitController and DropFactory");
  const contracts = await deployDevnet(anvil.url);
  done(`Seaport ${contracts.seaportAddress}`);
  return { anvil, contracts, stop: () => stopProcesses([anvil.process]) };
}

/**
 * Starts the service on `anvil` with clean local storage in `persistDir`. Options:
 *   port            the service's port (default: a free one)
 *   persistDir      local D1/KV/R2/DO state, wiped first
 *   secretsFile     where the secrets are written; anything but the repository's .dev.vars is
 *                   passed with --env-file, so a benchmark never overwrites a developer's file
 *   serviceRpcUrl   async (anvil) => the RPC URL the service should use (default anvil.url),
 *                   e.g. a counting proxy
 *   vars            extra vars (strings)
 *   inspectorPort   workerd's devtools port (default: wrangler picks 9229 or the next free one)
 *   snapshotDir     bundle the Worker once into this directory and serve that bundle: wrangler
 *                   dev always watches its sources, and a benchmark must not be reloaded mid-run
 *                   by someone editing src/ (npm run dev leaves it unset: live reload is the point)
 *   devtools        attach wrangler dev's DevTools inspector (default false: detached,
 *                   scripts/lib/wrangler-devtools.mjs). Attached, every subrequest's DevTools
 *                   events are posted one HTTP request each to wrangler's Node process, which
 *                   under sustained load piles up connections until workerd runs out of files
 *                   (docs/reliability.md); `npm run dev -- --devtools` attaches it for debugging
 *   testScheduled   expose wrangler's /__scheduled endpoint, which runs the cron handler on request
 *                   (wrangler dev does not run cron triggers on their schedule)
 *   step            progress printer from stepPrinter() (default: silent)
 */
export async function startService({
  anvil,
  contracts,
  port,
  persistDir,
  secretsFile = DEFAULT_DEV_VARS,
  serviceRpcUrl,
  vars = {},
  inspectorPort,
  snapshotDir,
  devtools = false,
  testScheduled = false,
  step = silentStep,
}) {
  rmSync(persistDir, { recursive: true, force: true });
  mkdirSync(persistDir, { recursive: true });
  const servicePort = port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${servicePort}`;
  const adminToken = randomBytes(24).toString("base64url");
  const mnemonic = generateMnemonic(english);
  const chains = devnetChains(serviceRpcUrl ? await serviceRpcUrl(anvil) : anvil.url, contracts);
  // Secrets for wrangler dev (git-ignored when it is .dev.vars). Vars override wrangler.toml for this run only.
  mkdirSync(path.dirname(secretsFile), { recursive: true });
  writeFileSync(secretsFile, `WALLET_MNEMONIC="${mnemonic}"\nADMIN_TOKEN="${adminToken}"\n`, { mode: 0o600 });

  let done = step("Applying D1 migrations (local)");
  await run(process.execPath, [WRANGLER_BIN, "d1", "migrations", "apply", "DB", "--local", "--persist-to", persistDir]);
  done();

  const snapshotConfig = snapshotDir ? await snapshotWorker(snapshotDir, step) : undefined;
  const allVars = { CHAINS: JSON.stringify(chains), PUBLIC_URL: baseUrl, ...vars };

  done = step(`Starting wrangler dev on ${baseUrl}${devtools ? " (DevTools attached)" : ""}`);
  const args = [
    WRANGLER_BIN, "dev",
    ...(snapshotConfig ? ["--config", snapshotConfig, "--no-bundle"] : []),
    "--ip", "127.0.0.1",
    "--port", String(servicePort),
    ...(inspectorPort ? ["--inspector-port", String(inspectorPort)] : []),
    "--persist-to", persistDir,
    ...Object.entries(allVars).flatMap(([key, value]) => ["--var", `${key}:${value}`]),
    ...(path.resolve(secretsFile) === DEFAULT_DEV_VARS ? [] : ["--env-file", path.resolve(secretsFile)]),
    "--show-interactive-dev-session=false",
    ...(testScheduled ? ["--test-scheduled"] : []),
  ];
  const wrangler = spawn(process.execPath, args, {
    cwd: ROOT,
    env: wranglerDevEnv(CHILD_ENV, { devtools }),
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, so Ctrl-C can stop wrangler and the workerd it spawns together.
    detached: true,
  });
  children.add(wrangler);
  leaders.add(wrangler);
  let log = "";
  const capture = (chunk) => {
    log += chunk;
    if (log.length > 20_000) log = log.slice(-20_000);
  };
  wrangler.stdout.on("data", capture);
  wrangler.stderr.on("data", capture);
  try {
    await waitForHealth(baseUrl, wrangler);
  } catch (error) {
    process.stderr.write(`\n${log}\n`);
    throw error;
  }
  done();

  return {
    baseUrl,
    chains,
    adminToken,
    anvil,
    /** wrangler's process: the leader of its process group. */
    wrangler,
    /** The last 20 kB it printed (its output is not shown unless the caller pipes it). */
    logTail: () => log,
    stop: () => stopProcesses([wrangler]),
  };
}

/** One bundle per directory and run: a second service on the same snapshot serves the same code. */
const snapshots = new Map();

/** Bundles src/ as `wrangler deploy` would, next to a copy of wrangler.toml that serves the bundle. */
async function snapshotWorker(dir, step) {
  if (snapshots.has(dir)) return snapshots.get(dir);
  const done = step("Bundling the Worker (a snapshot: later edits to src/ do not reload it)");
  rmSync(dir, { recursive: true, force: true });
  await run(process.execPath, [WRANGLER_BIN, "deploy", "--dry-run", "--outdir", dir]);
  // The dry run also ran wrangler.toml's [build] (the /docs assets): the copy serves them from
  // the repository's build/assets and builds nothing itself.
  const config = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8")
    .replace(/^main\s*=.*$/m, 'main = "index.js"')
    .replace(/^migrations_dir\s*=.*$/m, `migrations_dir = ${JSON.stringify(path.join(ROOT, "migrations"))}`)
    .replace(/^directory\s*=.*$/m, `directory = ${JSON.stringify(path.join(ROOT, "build", "assets"))}`)
    .replace(/^\[build\]\ncommand\s*=.*\n/m, "");
  writeFileSync(path.join(dir, "wrangler.toml"), config);
  done();
  snapshots.set(dir, path.join(dir, "wrangler.toml"));
  return snapshots.get(dir);
}

async function adminPost(stack, pathName, body) {
  const response = await fetch(`${stack.baseUrl}${pathName}`, {
    method: "POST",
    headers: { authorization: `Bearer ${stack.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${pathName}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** A project with an API key and a secret key whose wallet holds `ether` ETH on the devnet. */
export async function createFundedProject(stack, name, { ether = 100n } = {}) {
  const project = await adminPost(stack, "/v1/admin/projects", { name });
  const apiKey = await adminPost(stack, `/v1/admin/projects/${project.id}/keys`, { kind: "api" });
  const secretKey = await adminPost(stack, `/v1/admin/projects/${project.id}/keys`, { kind: "secret" });
  await stack.anvil.rpc("anvil_setBalance", [project.walletAddress, `0x${(ether * ETHER).toString(16)}`]);
  return { projectId: project.id, apiKey: apiKey.key, secretKey: secretKey.key, walletAddress: project.walletAddress };
}
