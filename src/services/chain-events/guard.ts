// The exactly-once mechanism for chain logs. Each log's statements run in one D1 batch: the
// first claims the log in `chain_events` with a random token, the others only act when the claim
// row carries that token, so a second application of the same log changes nothing. A transaction
// already applied from another block (a reorg brought it back elsewhere, at other log indexes) is
// not applied again: its effects stand, since nothing is rolled back (decision 75).

import type { LogRef } from "../../chain/log-ref";

export interface LogGuard {
  chainId: number;
  transactionHash: string;
  logIndex: number;
  blockNumber: number;
  /** Null when the node gave none; such a claim never stops another block's. */
  blockHash: string | null;
  token: string;
}

/** SQL condition every effect of a log carries; bind `guardParams(guard)` where it appears. */
export const GUARD_SQL =
  "exists (select 1 from chain_events where chain_id = ? and transaction_hash = ? and log_index = ? and applied_by = ?)";
export const guardParams = (guard: LogGuard) => [guard.chainId, guard.transactionHash, guard.logIndex, guard.token];

/**
 * Claims the log, unless its transaction was applied from another block. `onlyIf` adds a
 * condition (SQL + params), e.g. "the transaction is still pending", so the receipt path applies
 * nothing once another run has finalised it.
 */
export function claimLog(db: D1Database, guard: LogGuard, onlyIf?: { sql: string; params: unknown[] }): D1PreparedStatement {
  return db
    .prepare(
      `insert or ignore into chain_events (chain_id, transaction_hash, log_index, applied_by, block_number, block_hash, created_at)
       select ?, ?, ?, ?, ?, ?, ? where (${onlyIf?.sql ?? "1"})
         and not exists (select 1 from chain_events where chain_id = ? and transaction_hash = ? and block_hash <> ?)`,
    )
    .bind(
      guard.chainId,
      guard.transactionHash,
      guard.logIndex,
      guard.token,
      guard.blockNumber,
      guard.blockHash,
      Date.now(),
      ...(onlyIf?.params ?? []),
      guard.chainId,
      guard.transactionHash,
      guard.blockHash,
    );
}

export function newLogGuard(chainId: number, log: LogRef): LogGuard {
  return { chainId, transactionHash: log.transactionHash, logIndex: log.logIndex, blockNumber: log.blockNumber, blockHash: log.blockHash, token: crypto.randomUUID() };
}
