import { sql } from "drizzle-orm";
import { fetchBlockNumber } from "../chain/block-number";
import { chainsFrom } from "../lib/chains";
import type { ServiceContext } from "./context";

/** Per check (decision 6): a health probe must answer even when a dependency hangs. */
const CHECK_TIMEOUT_MS = 2_000;

/** The work's result, or a rejection after CHECK_TIMEOUT_MS (D1 has no timeout option of its own). */
function withinTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

async function timed<T>(work: () => Promise<T>): Promise<{ value?: T; ok: boolean; latencyMs: number }> {
  const started = Date.now();
  try {
    const value = await work();
    return { value, ok: true, latencyMs: Date.now() - started };
  } catch {
    return { ok: false, latencyMs: Date.now() - started };
  }
}

export async function checkHealth({ env, db }: ServiceContext) {
  const [dbCheck, ...chainChecks] = await Promise.all([
    timed(() => withinTimeout(db.run(sql`select 1`))),
    ...[...chainsFrom(env).values()].map(async (chain) => {
      const check = await timed(() => fetchBlockNumber(chain.rpcUrl, CHECK_TIMEOUT_MS));
      return {
        chainId: chain.chainId,
        name: chain.name,
        ok: check.ok,
        blockNumber: check.value?.toString() ?? null,
        latencyMs: check.latencyMs,
      };
    }),
  ]);
  // Reads keep working while a chain RPC is down, so that is "degraded"; without D1 nothing works.
  const status = !dbCheck!.ok ? "down" : chainChecks.every((chain) => chain.ok) ? "ok" : "degraded";
  return {
    status: status as "ok" | "degraded" | "down",
    db: { ok: dbCheck!.ok, latencyMs: dbCheck!.latencyMs },
    chains: chainChecks,
    time: new Date().toISOString(),
  };
}
