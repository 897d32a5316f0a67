// Catch-up reads for collections registered with a start block behind the chain cursor (or
// registered while a run was in flight). Such a collection is left out of the head pass until
// its own reads reach the cursor; then it joins the head pass at cursor + 1. Both happen inside
// the chain's lease, so its logs are applied in chain order: every range first renews the lease,
// and a run that lost it stops.
import type { ChainConfig } from "../../lib/chains";
import { renewLease } from "./cursor";
import type { IndexedCollection } from "./asset-fields";
import { applyLogs } from "./apply-logs";
import type { RunState } from "./range-reader";

interface BackfillRow extends IndexedCollection {
  nextBlock: number;
}

/** The run's hold on the chain: its lease token, and how long a renewal extends it. */
export interface ChainLease {
  token: string;
  until: () => number;
}

export async function runBackfills(db: D1Database, chain: ChainConfig, run: RunState, cursor: number, lease: ChainLease): Promise<number> {
  const { results: rows } = await db
    .prepare(
      `select id, contract_address as contractAddress, schema, drop_id as dropId, backfill_next_block as nextBlock
       from collections where chain_id = ? and tracked = 1 and backfill_next_block is not null
       order by backfill_next_block`,
    )
    .bind(chain.chainId)
    .all<BackfillRow>();
  let logs = 0;
  let blocksLeft = run.config.blocksPerRun;
  for (const row of rows) {
    let next = row.nextBlock;
    const scope = {
      db,
      chain,
      collections: new Map([[row.contractAddress, row]]),
      seaport: null, // Seaport logs of past blocks were claimed when the cursor passed them
      budget: run.budget,
      blockTimes: run.blockTimes,
      webhookProjects: run.webhookProjects,
    };
    while (next <= cursor && blocksLeft > 0 && run.canContinue()) {
      if (!(await renewLease(db, chain.chainId, lease.token, lease.until()))) return logs; // the run holding the lease now owns this row's progress
      const read = await run.read(chain.rpcUrl, [row.contractAddress], next, Math.min(cursor, next + blocksLeft - 1));
      const { stopBefore } = await applyLogs(scope, read.logs);
      logs += read.logs.length;
      const reached = stopBefore === null ? read.to : stopBefore - 1;
      blocksLeft -= reached - next + 1;
      next = reached + 1;
      if (stopBefore !== null) break;
    }
    // Caught up: from now on the head pass reads it. A start block ahead of the cursor waits.
    const live = next === cursor + 1;
    if (live || next !== row.nextBlock) {
      // Only while the lease holds: a run that lost it during the range has a stale cursor, and
      // clearing the field from it would skip the blocks the new holder's head pass has read.
      const recorded = await db
        .prepare(
          `update collections set backfill_next_block = ?, updated_at = ?
           where id = ? and exists (select 1 from indexer_cursors where chain_id = ? and lease_token = ?)`,
        )
        .bind(live ? null : next, Date.now(), row.id, chain.chainId, lease.token)
        .run();
      if (!recorded.meta.changes) return logs;
    }
    if (!run.canContinue() || blocksLeft <= 0) break;
  }
  return logs;
}
