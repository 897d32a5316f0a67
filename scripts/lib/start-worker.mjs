// Runs the Worker the way `wrangler dev` does (same workerd, same Miniflare, same local D1/DO
// storage) through wrangler's programmatic unstable_startWorker, but with the devtools
// inspector off and no file watching. `wrangler dev` always attaches its inspector proxy, which
// turns on the DevTools Network domain: every subrequest (each D1 query, each RPC call) then
// costs four extra events, each posted to wrangler's Node process. The claims benchmark's
// --profile uses this runner to measure that tax. Started by scripts/lib/stack.mjs as a child
// process (its own process group) with its settings as JSON in MINTYARD_START_WORKER.
import { unstable_startWorker } from "wrangler";

const settings = JSON.parse(process.env.MINTYARD_START_WORKER ?? "{}");
const bindings = Object.fromEntries(Object.entries(settings.vars).map(([name, value]) => [name, { type: "plain_text", value }]));

const worker = await unstable_startWorker({
  config: settings.config,
  envFiles: [settings.envFile],
  bindings,
  ...(settings.noBundle ? { build: { bundle: false } } : {}),
  dev: {
    inspector: false,
    watch: false,
    persist: settings.persistDir,
    server: { hostname: "127.0.0.1", port: settings.port },
    logLevel: "warn",
  },
});
await worker.ready;

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await worker.dispose().catch(() => {});
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
