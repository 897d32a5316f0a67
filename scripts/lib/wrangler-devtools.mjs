// `wrangler dev` (4.86) always attaches its DevTools inspector proxy to the Worker and turns on
// the DevTools Network domain: every subrequest (each local D1 query, each RPC fetch) then emits
// events that wrangler's InspectorProxyWorker posts one by one to wrangler's Node process. That
// is a debugging tool's cost, not the service's (about half of a claim's CPU; docs/benchmarks.md).
// wrangler has no flag for it; the one switch it reads is VSCODE_INSPECTOR_OPTIONS, which a VS
// Code JavaScript Debug Terminal sets so that VS Code's own debugger attaches instead. Set, and
// with no js-debug bootloader in NODE_OPTIONS, wrangler and Miniflare start no inspector proxy
// and nothing listens on workerd's inspector (wrangler-dist/cli.js `inspectorEnabled`,
// miniflare's index.js). It is still `wrangler dev`: same CLI, runtime, local storage and
// request proxy; only the devtools are detached.

const SWITCH = "VSCODE_INSPECTOR_OPTIONS";

/** The environment for a `wrangler dev` child, with its devtools attached (as `npm run dev` has them) or detached. */
export function wranglerDevEnv(baseEnv, { devtools }) {
  if (devtools) {
    const { [SWITCH]: _detached, ...env } = baseEnv;
    return env;
  }
  return { ...baseEnv, [SWITCH]: "{}" };
}
