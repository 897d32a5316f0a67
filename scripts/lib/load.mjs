// A fixed-concurrency request runner for the throughput benchmarks: `concurrency` workers take
// the next index until `count` requests are done, each request's start, end and outcome are
// kept, and a progress line is printed every ~10 % so a slow run is visibly alive.
import { performance } from "node:perf_hooks";

/**
 * send(i) resolves to { ok, status, ...anything } and should not throw; a throw is recorded as
 * { ok: false, status: "error", error }.
 */
export async function runConcurrent({ count, concurrency, send, label, log = (line) => console.log(line) }) {
  const results = new Array(count);
  const step = Math.max(1, Math.ceil(count / 10));
  let next = 0;
  let finished = 0;
  let accepted = 0;
  const startedAt = performance.now();

  async function worker() {
    while (next < count) {
      const i = next++;
      const start = performance.now();
      let outcome;
      try {
        outcome = await send(i);
      } catch (error) {
        outcome = { ok: false, status: "error", error: error instanceof Error ? error.message : String(error) };
      }
      const end = performance.now();
      results[i] = { ...outcome, i, start, end, latencyMs: end - start };
      finished += 1;
      if (outcome.ok) accepted += 1;
      if (finished % step === 0 || finished === count) {
        const seconds = (end - startedAt) / 1000;
        log(`  [${label}] ${String(finished).padStart(String(count).length)}/${count} (${Math.round((finished / count) * 100)} %)  ${seconds.toFixed(1)} s  ${accepted} accepted, ${finished - accepted} failed, ${(accepted / seconds).toFixed(0)}/s`);
      }
    }
  }

  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { results, startedAt, endedAt: performance.now() };
}

/** Nearest-rank percentile (p in 0..100) of a list of numbers; null when empty. */
export function percentile(values, p) {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/**
 * Polls `check()` (→ truthy when done) every `intervalMs`. Resolves with the time it first saw
 * done, or null after `timeoutMs`: the caller reports what is still missing rather than dying.
 */
export async function waitUntil(check, { intervalMs = 100, timeoutMs }) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return performance.now();
    if (performance.now() > deadline) return null;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
