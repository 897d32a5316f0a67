// One indexer run: every configured chain (in parallel; each under its own lease), then the
// expiry sweep and the webhook delivery log's purge. Called by the cron trigger and by POST /v1/admin/index.
import { ChainUnavailableError } from "../../chain/chain-unavailable";
import { kickWebhooks } from "../../durable-objects/stubs";
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
  /** Chains whose RPC failed this run (they resume from their cursor next run). */
  unavailable: number[];
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
  const run: IndexerRun = { chains: [], unavailable: [] };
  outcomes.forEach((outcome, i) => {
    const chainId = chains[i]!.chainId;
    if (outcome.status === "fulfilled") run.chains.push(outcome.value);
    else if (outcome.reason instanceof ChainUnavailableError) {
      logWarn(ctx.env, { task: "indexer", chainId }, outcome.reason.cause ?? outcome.reason);
      run.unavailable.push(chainId);
    } else throw outcome.reason;
  });
  const now = Date.now();
  await deleteExpiredStoredResponses(ctx, now);
  await sweepExpired(db, now);
  await purgeDeliveryLog(db, now);
  return run;
}

/** POST /v1/admin/index: the run's report, or 502 when a chain's RPC failed (the others were still indexed). */
export async function runIndexerForAdmin(ctx: ServiceContext): Promise<{ chains: ChainIndexReport[] }> {
  const run = await runIndexer(ctx);
  if (run.unavailable.length) {
    throw new AppError("chain_unavailable", `chain ${run.unavailable.join(", ")} RPC did not answer; other chains were indexed`);
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
