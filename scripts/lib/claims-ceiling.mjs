// The claims benchmark's ceiling: how fast `wrangler dev` itself answers claims on the machine it runs on.
// A Worker that does no work (no auth, no D1, no Durable Object, no chain) answers every
// claim (CLAIM_PATH) with a copy of a real 201 body; it runs under wrangler dev
// as the service does (bundle served as-is, devtools detached, state in the same kind of place)
// and gets the same client, count and concurrency. No claim route can accept claims faster than
// that in the same run, and confirmed/s is at most accepted/s (the last confirmation comes after
// the last answer), so ceiling ÷ raw confirmed/s bounds the ratio the service could reach.
import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startWranglerDev } from "./bench-reads-stack.mjs";
import { CLAIM_PATH } from "./bench-service.mjs";
import { percentile, runConcurrent } from "./load.mjs";
import { cpuDelta, cpuSampler } from "./proc-cpu.mjs";
import { ROOT } from "./stack.mjs";

/** The root wrangler.toml's runtime settings, so the no-op Worker runs on the same runtime. */
function runtimeSettings() {
  const toml = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8");
  return ["compatibility_date", "compatibility_flags"].map((key) => new RegExp(`^${key}\\s*=.*$`, "m").exec(toml)?.[0]).filter(Boolean);
}

function writeNoopWorker(dir, body) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, "index.js"),
    `const BODY = ${JSON.stringify(body)};
export default {
  async fetch(request) {
    await request.arrayBuffer();
    const health = new URL(request.url).pathname === "/health";
    return new Response(health ? "{}" : BODY, { status: health ? 200 : 201, headers: { "content-type": "application/json" } });
  },
};
`,
  );
  writeFileSync(path.join(dir, "wrangler.toml"), ['name = "claims-ceiling"', 'main = "index.js"', ...runtimeSettings()].join("\n") + "\n");
  return { config: path.join(dir, "wrangler.toml") };
}

/**
 * `count` claims of `claimBody` at `concurrency` against the no-op Worker, answered with
 * `responseBody` (a real claim's 201). Returns requests/s, latency and CPU per request.
 */
export async function ceilingRun({ dir, claimBody, responseBody, count, concurrency, anvilPid }) {
  const bundle = writeNoopWorker(path.join(dir, "worker"), JSON.stringify(responseBody));
  const worker = await startWranglerDev({ persistDir: path.join(dir, "state"), bundle, vars: {}, devtools: false });
  try {
    const send = async () => {
      const response = await fetch(`${worker.baseUrl}${CLAIM_PATH}`, {
        method: "POST",
        headers: { authorization: "Bearer sk_ceiling", "content-type": "application/json" },
        body: JSON.stringify(claimBody),
      });
      await response.json();
      return { ok: response.status === 201, status: response.status };
    };
    const sampleCpu = cpuSampler({ wranglerPid: worker.pid, anvilPid });
    const before = sampleCpu();
    const load = await runConcurrent({ count, concurrency, send, label: "ceiling" });
    const cpu = cpuDelta(before, sampleCpu());
    const seconds = (load.endedAt - load.startedAt) / 1000;
    const latencies = load.results.map((result) => result.latencyMs);
    const answered = load.results.filter((result) => result.ok).length;
    return {
      answered,
      failed: count - answered,
      perSecond: answered / seconds,
      p50: percentile(latencies, 50),
      cpuPerRequestMs: Object.fromEntries(Object.entries(cpu).map(([group, cpuSeconds]) => [group, (cpuSeconds * 1000) / count])),
      cpu,
      seconds,
    };
  } finally {
    await worker.stop();
  }
}
