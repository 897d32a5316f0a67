// One indexer pass over one chain: take the chain's lease, read the head range for every live
// collection and Seaport, then the collections still catching up, advancing the cursor after
// each range. Stays `confirmations` blocks behind the head; see docs/decisions.md for the reorg
// stance.
import { latestBlockNumber } from "../../chain/log-reader";
import type { ChainConfig } from "../../lib/chains";
import type { IndexedCollection } from "./asset-fields";
import { applyLogs } from "./apply-logs";
import { retryDueRevivals } from "./revive-listings";
import { logWarn } from "../../lib/log";
import { runBackfills } from "./backfill";
import { LEASE_MARGIN_MS, type IndexerConfig } from "./config";
import { acquireLease, advanceCursor, ensureCursor, readCursor, releaseLease } from "./cursor";
import { RunState } from "./range-reader";

export interface ChainIndexReport {
  chainId: number;
  /** First block this pass read; `toBlock` < `fromBlock` when there was nothing new. */
  fromBlock: number;
  /** The cursor after this pass: the last block whose logs are applied. */
  toBlock: number;
  /** Logs read (head range and backfills), including ones already applied. */
  logs: number;
}

const ZERO = /^0x0{40}$/i;

export async function indexChain(
  db: D1Database,
  chain: ChainConfig,
  config: IndexerConfig,
  startedAt: number,
  webhookProjects = new Set<string>(),
): Promise<ChainIndexReport> {
  // The head is read before the collection list: a drop inserted after the list was read is
  // deployed after this head, so none of its logs fall in this pass's range.
  const { safeHead } = await chainCursor(db, chain);

  const token = crypto.randomUUID();
  const leaseUntil = () => Date.now() + config.runMs + LEASE_MARGIN_MS;
  const start = await acquireLease(db, chain.chainId, token, leaseUntil(), Date.now());
  if (start === null) {
    // Another run holds the chain; it reports what it reads.
    const cursor = (await readCursor(db, chain.chainId))!;
    return { chainId: chain.chainId, fromBlock: cursor + 1, toBlock: cursor, logs: 0 };
  }
  try {
    const run = new RunState(config, startedAt, webhookProjects);
    const head = await indexHead(db, chain, run, token, start, safeHead, leaseUntil);
    const backfilled = head.leaseLost ? 0 : await runBackfills(db, chain, run, head.cursor, { token, until: leaseUntil });
    // Revival checks earlier ranges could not make (decision 97): best effort, within the run's
    // time, and never a reason to report a chain whose logs were applied as failed.
    if (!head.leaseLost && run.canContinue()) {
      await retryDueRevivals(db, chain).catch((error: unknown) => logWarn({}, { task: "indexer", chainId: chain.chainId, step: "revival retries" }, error));
    }
    return { chainId: chain.chainId, fromBlock: start + 1, toBlock: head.cursor, logs: head.logs + backfilled };
  } finally {
    await releaseLease(db, chain.chainId, token);
  }
}

async function indexHead(
  db: D1Database,
  chain: ChainConfig,
  run: RunState,
  token: string,
  start: number,
  safeHead: number,
  leaseUntil: () => number,
): Promise<{ cursor: number; logs: number; leaseLost: boolean }> {
  const collections = await liveCollections(db, chain.chainId);
  const seaport = ZERO.test(chain.seaportAddress) ? null : chain.seaportAddress.toLowerCase();
  const addresses = [...collections.keys(), ...(seaport ? [seaport] : [])];
  const scope = { db, chain, collections, seaport, budget: run.budget, blockTimes: run.blockTimes, webhookProjects: run.webhookProjects };
  const end = Math.min(safeHead, start + run.config.blocksPerRun);
  let cursor = start;
  let logs = 0;
  while (cursor < end && run.canContinue()) {
    const read = addresses.length ? await run.read(chain.rpcUrl, addresses, cursor + 1, end) : { to: end, logs: [] };
    const { stopBefore } = await applyLogs(scope, read.logs);
    logs += read.logs.length;
    const reached = stopBefore === null ? read.to : stopBefore - 1;
    if (reached > cursor) {
      if (!(await advanceCursor(db, chain.chainId, token, reached, leaseUntil()))) return { cursor, logs, leaseLost: true };
      cursor = reached;
    }
    if (stopBefore !== null) break;
  }
  return { cursor, logs, leaseLost: false };
}

/** The chain's cursor, created on first use (see `initialCursor`), and its safe head now. */
export async function chainCursor(db: D1Database, chain: ChainConfig): Promise<{ cursor: number; safeHead: number }> {
  const safeHead = (await latestBlockNumber(chain.rpcUrl)) - chain.confirmations;
  let cursor = await readCursor(db, chain.chainId);
  if (cursor === null) {
    await ensureCursor(db, chain.chainId, await initialCursor(db, chain, safeHead));
    cursor = (await readCursor(db, chain.chainId))!;
  }
  return { cursor, safeHead };
}

async function liveCollections(db: D1Database, chainId: number): Promise<Map<string, IndexedCollection>> {
  const { results } = await db
    .prepare(
      `select id, contract_address as contractAddress, schema, drop_id as dropId from collections
       where chain_id = ? and tracked = 1 and backfill_next_block is null`,
    )
    .bind(chainId)
    .all<IndexedCollection>();
  return new Map(results.map((row) => [row.contractAddress, row]));
}

/**
 * Where a chain's first run starts: `indexerStartBlock` when configured; otherwise the safe head
 * (a new deployment has nothing older to read), or just before the first drop this database
 * deployed there if that is older (a database restored or a cron enabled late).
 */
async function initialCursor(db: D1Database, chain: ChainConfig, safeHead: number): Promise<number> {
  if (chain.indexerStartBlock !== undefined) return chain.indexerStartBlock - 1;
  const row = await db
    .prepare(
      // Once per chain, so a scan is fine. Deploy transactions are drop deployments.
      "select min(block_number) as block from transactions where chain_id = ? and kind = 'deploy' and block_number is not null",
    )
    .bind(chain.chainId)
    .first<{ block: number | null }>();
  const firstDrop = row?.block ?? Number.POSITIVE_INFINITY;
  return Math.max(-1, Math.min(safeHead - 1, firstDrop - 1));
}
