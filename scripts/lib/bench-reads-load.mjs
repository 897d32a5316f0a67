// HTTP load loop for `npm run bench:reads`: `concurrency` workers on keep-alive sockets, each
// sending its next request as soon as the previous answer is fully read (closed loop). Uses
// node:http rather than fetch because the client shares 2 cores with wrangler and workerd,
// and fetch costs several times more CPU per request.
import http from "node:http";
import { performance } from "node:perf_hooks";

export function stats(samples) {
  if (!samples.length) return { n: 0, p50: NaN, p95: NaN, p99: NaN, mean: NaN };
  const sorted = Float64Array.from(samples).sort();
  // Nearest-rank percentiles: a reported p99 is a latency some request really had.
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  return { n: sorted.length, p50: at(50), p95: at(95), p99: at(99), mean: sorted.reduce((a, b) => a + b, 0) / sorted.length };
}

function get(agent, url, headers) {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { agent, headers }, (response) => {
      const chunks = [];
      response.on("data", (chunk) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode, body: Buffer.concat(chunks) }));
      response.on("error", reject);
    });
    request.on("error", reject);
  });
}

/** One request, parsed: for the correctness check against the direct SQL. */
export async function getJson(baseUrl, path, headers) {
  const agent = new http.Agent({ keepAlive: false });
  const { status, body } = await get(agent, `${baseUrl}${path}`, headers);
  return { status, json: JSON.parse(body.toString("utf8")) };
}

/**
 * Runs `nextPath()` requests (with `headers`, an object or a function giving each request's) until `maxRequests` are done or `maxMs` has passed. Latencies
 * are request start → last body byte, in ms. A status other than `expectStatus` counts as an
 * error (its first body is kept for the report) and its latency is not recorded.
 */
export async function runLoad({ baseUrl, headers, nextPath, concurrency, maxRequests, maxMs, expectStatus = 200 }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies = [];
  let sent = 0;
  let errors = 0;
  let firstError;
  const started = performance.now();
  const deadline = started + maxMs;
  const worker = async () => {
    while (sent < maxRequests && performance.now() < deadline) {
      sent++;
      const path = nextPath();
      const t0 = performance.now();
      try {
        const { status, body } = await get(agent, `${baseUrl}${path}`, typeof headers === "function" ? headers() : headers);
        if (status === expectStatus) latencies.push(performance.now() - t0);
        else {
          errors++;
          firstError ??= `${status} ${path}: ${body.toString("utf8").slice(0, 300)}`;
        }
      } catch (error) {
        errors++;
        firstError ??= `${path}: ${error.code ?? ""} ${error.message}`;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsedMs = performance.now() - started;
  agent.destroy();
  return { ...stats(latencies), rps: (latencies.length / elapsedMs) * 1000, elapsedMs, errors, firstError };
}
