// One indexer run: every configured chain (in parallel; each under its own lease), then the
// expiry sweep and the webhook delivery log's purge. Called by the cron trigger and by POST /v1/admin/index.
import { ChainUnavailableError } from "../../chain/chain-unavailable";
import { kickWebhooks } from "../durable-object-stubs";
import { chainsFrom } from "../../lib/chains";
import { AppError } from "../../lib/errors";
import { logError, logWarn } from "../../lib/log";
import type { ServiceContext } from "../context";
import { indexerConfig } from "./config";
import { indexChain, type ChainIndexReport } from "./index-chain";
import { sweepExpired } from "./sweep";
import { deleteExpiredStoredResponses } from "../idempotency";
import { purgeDeliveryLog } from "../webhooks/retention";

export interface IndexerRun {
  chains: ChainIndexReport[];
  /** Chains whose RPC failed this run, with why (they resume from their cursor next run). */
  unavailable: { chainId: number; reason: string }[];
  /** Chains whose run failed inside the service (logged; they too resume from their cursor). */
  failed: number[];
  /** Housekeeping steps that failed (logged; each is retried by the next run). */
  housekeepingFailed: string[];
}

/**
 * Time-based work that needs no chain: it runs whatever any chain's indexing did, and each step
 * on its own, so one chain's or one step's failure cannot stop expiries, start times or purges
 * everywhere (a failure that repeats would stop them for good).
 */
async function housekeeping(ctx: ServiceContext, now: number): Promise<string[]> {
  const steps: [string, () => Promise<unknown>][] = [
    ["idempotency records", () => deleteExpiredStoredResponses(ctx, now)],
    ["order expiry and start sweep", () => sweepExpired(ctx.env.DB, now)],
    ["webhook delivery log purge", () => purgeDeliveryLog(ctx.env.DB, now)],
  ];
  const failed: string[] = [];
  for (const [name, step] of steps) {
    await step().catch((error) => {
      logError(ctx.env, { task: "indexer", step: name }, error);
      failed.push(name);
    });
  }
  return failed;
}

export async function runIndexer(ctx: ServiceContext): Promise<IndexerRun> {
  const db = ctx.env.DB;
  const config = indexerConfig(ctx.env);
  const startedAt = Date.now();
  const chains = [...chainsFrom(ctx.env).values()];
  const webhookProjects = new Set<string>();
  const outcomes = await Promise.allSettled(chains.map((chain) => indexChain(db, chain, config, startedAt, webhookProjects)));
  // Fills found on chain (order.filled) are delivered now, not at the cron's next re-kick.
  await Promise.all([...webhookProjects].map((projectId) => kickWebhooks(ctx.env, projectId)));
  const run: IndexerRun = { chains: [], unavailable: [], failed: [], housekeepingFailed: [] };
  outcomes.forEach((outcome, i) => {
    const chainId = chains[i]!.chainId;
    if (outcome.status === "fulfilled") run.chains.push(outcome.value);
    else if (outcome.reason instanceof ChainUnavailableError) {
      // The reason (ours: which block, which address, the node's codes) and the RPC error under it.
      logWarn(ctx.env, { task: "indexer", chainId, reason: outcome.reason.message }, outcome.reason.cause ?? outcome.reason);
      run.unavailable.push({ chainId, reason: outcome.reason.message });
    } else {
      logError(ctx.env, { task: "indexer", chainId }, outcome.reason);
      run.failed.push(chainId);
    }
  });
  run.housekeepingFailed = await housekeeping(ctx, Date.now());
  return run;
}

/**
 * POST /v1/admin/index: the run's report; 502 when a chain's RPC failed, 500 when a chain or a
 * housekeeping step failed inside the service. Either way the other chains were indexed and the
 * housekeeping ran.
 */
export async function runIndexerForAdmin(ctx: ServiceContext): Promise<{ chains: ChainIndexReport[] }> {
  const run = await runIndexer(ctx);
  const indexed = run.chains.map((report) => report.chainId).join(", ") || "none";
  if (run.failed.length || run.housekeepingFailed.length) {
    const what = [...run.failed.map((chainId) => `chain ${chainId}`), ...run.housekeepingFailed].join(", ");
    throw new AppError("internal_error", `indexer run failed for ${what} (logged); chains indexed: ${indexed}`);
  }
  if (run.unavailable.length) {
    const why = run.unavailable.map(({ chainId, reason }) => `chain ${chainId}: ${reason}`).join("; ");
    throw new AppError("chain_unavailable", `a chain's RPC failed (${why}); chains indexed: ${indexed}`);
  }
  return { chains: run.chains };
}

/** The cron trigger: failures are logged, the next minute's run resumes from the cursors. */
export async function runScheduledIndexer(ctx: ServiceContext): Promise<void> {
  try {
    await runIndexer(ctx);
  } catch (error) {
    logError(ctx.env, { task: "indexer" }, error);
  }
}
