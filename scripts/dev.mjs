#!/usr/bin/env node
// `npm run dev`: a complete local Mintyard on a fresh devnet. Starts anvil (chain 1868, 1 s
// blocks), deploys Seaport + ConduitController + DropFactory, applies the D1 migrations, runs
// `wrangler dev`, creates a funded demo project and prints its keys. Ctrl-C stops everything.
// Every run starts from a clean slate (new chain, new local D1/KV/R2 under .dev/state).
// The stack itself is scripts/lib/stack.mjs, shared with the benchmarks.
// `--devtools` attaches wrangler's DevTools inspector (for chrome://inspect): a debugging session,
// not for load, since it posts every subrequest's events to wrangler's Node process one request
// each (docs/reliability.md, "the local stack under load").
import { writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { freePort } from "./lib/anvil.mjs";
import { acquireDevLock } from "./lib/dev-lock.mjs";
import { ROOT, createFundedProject, portIsFree, startStack, stepPrinter, stopChildren } from "./lib/stack.mjs";

const DEV_DIR = path.join(ROOT, ".dev");
const STATE_DIR = path.join(DEV_DIR, "state");
const PORT = Number(process.env.PORT ?? 8787);
const ANVIL_PORT = Number(process.env.ANVIL_PORT ?? 8545);
const DEMO_FUNDING_ETHER = 100n;
const CRON_INTERVAL_MS = 60_000;
const { values: opts } = parseArgs({ options: { devtools: { type: "boolean", default: false } } });

let stopping = false;

async function shutdown(code = 0) {
  if (stopping) return;
  stopping = true;
  process.stdout.write("\nStopping…\n");
  await stopChildren();
  process.exit(code);
}

async function main() {
  // Before anything is wiped or written: a second run in this checkout is refused, naming the first's pid.
  process.on("exit", acquireDevLock(DEV_DIR).release);
  process.on("SIGINT", () => shutdown(0));
  process.on("SIGTERM", () => shutdown(0));
  const step = stepPrinter();

  const stack = await startStack({
    port: PORT,
    persistDir: STATE_DIR,
    // The repository's .dev.vars (git-ignored): `npm run dev` owns it, as the README says.
    secretsFile: path.join(ROOT, ".dev.vars"),
    anvilOptions: { port: (await portIsFree(ANVIL_PORT)) ? ANVIL_PORT : await freePort(), blockTime: 1 },
    // Local webhook receivers usually listen on http://127.0.0.1.
    vars: { ALLOW_LOOPBACK_WEBHOOKS: "true" },
    testScheduled: true,
    devtools: opts.devtools,
    step,
  });
  const { baseUrl, adminToken, anvil, contracts, wrangler } = stack;

  const done = step("Creating the demo project");
  const project = await createFundedProject(stack, "Demo project", { ether: DEMO_FUNDING_ETHER });
  done(`wallet ${project.walletAddress} funded with ${DEMO_FUNDING_ETHER} ETH`);

  const credentials = {
    baseUrl,
    adminToken,
    projectId: project.projectId,
    apiKey: project.apiKey,
    secretKey: project.secretKey,
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
  Project id    ${project.projectId}
  API key       ${project.apiKey}
  Secret key    ${project.secretKey}
  Wallet        ${project.walletAddress}  (${DEMO_FUNDING_ETHER} ETH on chain 1868)
  Chain RPC     ${anvil.url}
  Seaport       ${contracts.seaportAddress}
  DropFactory   ${contracts.dropFactoryAddress}

Saved to .dev/credentials.json. Try:
  curl -H "x-api-key: ${project.apiKey}" ${baseUrl}/v1/drops

The cron (indexer, listing expiry, webhook sweep) runs every minute.
Ctrl-C stops anvil and wrangler.
`);

  // wrangler dev does not run cron triggers: run wrangler.toml's every-minute cron (indexer, listing
  // expiry, webhook sweep) through its /__scheduled endpoint, as production would.
  const cron = setInterval(() => {
    fetch(`${baseUrl}/__scheduled?cron=${encodeURIComponent("* * * * *")}`).catch(() => undefined);
  }, CRON_INTERVAL_MS);
  cron.unref();

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
