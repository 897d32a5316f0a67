#!/usr/bin/env node
// `npm run dev`: a complete local Mintyard on a fresh devnet. Starts anvil (chain 1868, 1 s
// blocks), deploys Seaport + ConduitController + DropFactory, applies the D1 migrations, runs
// `wrangler dev`, creates a funded demo project and prints its keys. Ctrl-C stops everything.
// Every run starts from a clean slate (new chain, new local D1/KV/R2 under .dev/state).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { generateMnemonic, english } from "viem/accounts";
import { freePort, startAnvil } from "./lib/anvil.mjs";
import { deployDevnet } from "./lib/devnet.mjs";

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");
const DEV_DIR = path.join(ROOT, ".dev");
const STATE_DIR = path.join(DEV_DIR, "state");
const PORT = Number(process.env.PORT ?? 8787);
const ANVIL_PORT = Number(process.env.ANVIL_PORT ?? 8545);
const DEMO_FUNDING_WEI = 100n * 10n ** 18n;
const WRANGLER_BIN = path.join(ROOT, "node_modules", "wrangler", "bin", "wrangler.js");
const CHILD_ENV = { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };

const children = new Set();
let stopping = false;

function step(label) {
  const started = Date.now();
  process.stdout.write(`• ${label}…`);
  return (detail = "") => process.stdout.write(` done in ${((Date.now() - started) / 1000).toFixed(1)} s${detail ? ` (${detail})` : ""}\n`);
}

function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: CHILD_ENV, stdio: ["ignore", "pipe", "pipe"], ...options });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve(output) : reject(new Error(`${command} ${args.join(" ")} exited ${code}:\n${output}`))));
  });
}

async function portIsFree(port) {
  const net = await import("node:net");
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
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

async function admin(baseUrl, adminToken, pathName, body) {
  const response = await fetch(`${baseUrl}${pathName}`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${pathName}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/** Signals the child's whole process group when it leads one (wrangler), else just the child. */
function signal(child, name) {
  try {
    process.kill(-child.pid, name);
  } catch {
    child.kill(name);
  }
}

async function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  process.stdout.write("\nStopping…\n");
  await Promise.all(
    [...children].map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once("exit", resolve);
          signal(child, "SIGTERM");
          setTimeout(() => child.exitCode === null && signal(child, "SIGKILL"), 3000).unref();
        }),
    ),
  );
  process.exit(code);
}

async function main() {
  process.on("SIGINT", () => shutdown(0));
  process.on("SIGTERM", () => shutdown(0));
  rmSync(STATE_DIR, { recursive: true, force: true });
  mkdirSync(STATE_DIR, { recursive: true });

  let done = step("Starting anvil (chain 1868, 1 s blocks, prague)");
  const anvil = await startAnvil({ port: (await portIsFree(ANVIL_PORT)) ? ANVIL_PORT : await freePort(), blockTime: 1 });
  children.add(anvil.process);
  done(anvil.url);

  done = step("Deploying Seaport 1.6, ConduitController and DropFactory");
  const contracts = await deployDevnet(anvil.url);
  done(`Seaport ${contracts.seaportAddress}`);

  const baseUrl = `http://127.0.0.1:${PORT}`;
  const adminToken = randomBytes(24).toString("base64url");
  const mnemonic = generateMnemonic(english);
  const chains = {
    1868: {
      name: "soneium",
      rpcUrl: anvil.url,
      seaportAddress: contracts.seaportAddress,
      dropFactoryAddress: contracts.dropFactoryAddress,
      confirmations: 0,
      nativeSymbol: "ETH",
    },
  };
  // Secrets for wrangler dev; git-ignored. Vars override wrangler.toml for this run only.
  writeFileSync(path.join(ROOT, ".dev.vars"), `WALLET_MNEMONIC="${mnemonic}"\nADMIN_TOKEN="${adminToken}"\n`, { mode: 0o600 });

  done = step("Applying D1 migrations (local)");
  await run(process.execPath, [WRANGLER_BIN, "d1", "migrations", "apply", "DB", "--local", "--persist-to", STATE_DIR]);
  done();

  done = step(`Starting wrangler dev on ${baseUrl}`);
  const wrangler = spawn(
    process.execPath,
    [
      WRANGLER_BIN, "dev",
      "--ip", "127.0.0.1",
      "--port", String(PORT),
      "--persist-to", STATE_DIR,
      "--var", `CHAINS:${JSON.stringify(chains)}`,
      "--var", `PUBLIC_URL:${baseUrl}`,
      "--show-interactive-dev-session=false",
    ],
    // Its own process group, so Ctrl-C can stop wrangler and the workerd it spawns together.
    { cwd: ROOT, env: CHILD_ENV, stdio: ["ignore", "pipe", "pipe"], detached: true },
  );
  children.add(wrangler);
  let wranglerLog = "";
  const capture = (chunk) => {
    wranglerLog += chunk;
    if (wranglerLog.length > 20_000) wranglerLog = wranglerLog.slice(-20_000);
  };
  wrangler.stdout.on("data", capture);
  wrangler.stderr.on("data", capture);
  try {
    await waitForHealth(baseUrl, wrangler);
  } catch (error) {
    process.stderr.write(`\n${wranglerLog}\n`);
    throw error;
  }
  done();

  done = step("Creating the demo project");
  const project = await admin(baseUrl, adminToken, "/v1/admin/projects", { name: "Demo project" });
  const apiKey = await admin(baseUrl, adminToken, `/v1/admin/projects/${project.id}/keys`, { kind: "api" });
  const secretKey = await admin(baseUrl, adminToken, `/v1/admin/projects/${project.id}/keys`, { kind: "secret" });
  await anvil.rpc("anvil_setBalance", [project.walletAddress, `0x${DEMO_FUNDING_WEI.toString(16)}`]);
  done(`wallet ${project.walletAddress} funded with 100 ETH`);

  const credentials = {
    baseUrl,
    adminToken,
    projectId: project.id,
    apiKey: apiKey.key,
    secretKey: secretKey.key,
    walletAddress: project.walletAddress,
    chainId: 1868,
    rpcUrl: anvil.url,
    seaportAddress: contracts.seaportAddress,
    dropFactoryAddress: contracts.dropFactoryAddress,
  };
  writeFileSync(path.join(DEV_DIR, "credentials.json"), `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });

  process.stdout.write(`
Mintyard is running at ${baseUrl}  (API reference: ${baseUrl}/docs)

  Admin token   ${adminToken}
  Project id    ${project.id}
  API key       ${apiKey.key}
  Secret key    ${secretKey.key}
  Wallet        ${project.walletAddress}  (100 ETH on chain 1868)
  Chain RPC     ${anvil.url}
  Seaport       ${contracts.seaportAddress}
  DropFactory   ${contracts.dropFactoryAddress}

Saved to .dev/credentials.json. Try:
  curl -H "x-api-key: ${apiKey.key}" ${baseUrl}/v1/drops

Ctrl-C stops anvil and wrangler.
`);

  // Keep wrangler's own output visible from here on.
  wrangler.stdout.pipe(process.stdout);
  wrangler.stderr.pipe(process.stderr);
  wrangler.on("exit", (code) => !stopping && (process.stderr.write(`wrangler dev exited (${code})\n`), shutdown(1)));
  anvil.process.on("exit", (code) => !stopping && (process.stderr.write(`anvil exited (${code})\n`), shutdown(1)));
}

main().catch(async (error) => {
  process.stderr.write(`\nnpm run dev failed: ${error.message}\n`);
  await shutdown(1);
});
