// The exactly-once mechanism for chain logs. Each log's statements run in one D1 batch: the
// first claims the log in `chain_events` with a random token, the others only act when the claim
// row carries that token, so a second application of the same log changes nothing.

export interface LogGuard {
  chainId: number;
  transactionHash: string;
  logIndex: number;
  blockNumber: number;
  token: string;
}

/** SQL condition every effect of a log carries; bind `guardParams(guard)` where it appears. */
export const GUARD_SQL =
  "exists (select 1 from chain_events where chain_id = ? and transaction_hash = ? and log_index = ? and applied_by = ?)";
export const guardParams = (guard: LogGuard) => [guard.chainId, guard.transactionHash, guard.logIndex, guard.token];

/**
 * Claims the log. `onlyIf` adds a condition (SQL + params), e.g. "the transaction is still
 * pending", so the receipt path applies nothing once another run has finalised it.
 */
export function claimLog(db: D1Database, guard: LogGuard, onlyIf?: { sql: string; params: unknown[] }): D1PreparedStatement {
  return db
    .prepare(
      `insert or ignore into chain_events (chain_id, transaction_hash, log_index, applied_by, block_number, created_at)
       select ?, ?, ?, ?, ?, ? where ${onlyIf?.sql ?? "1"}`,
    )
    .bind(guard.chainId, guard.transactionHash, guard.logIndex, guard.token, guard.blockNumber, Date.now(), ...(onlyIf?.params ?? []));
}

export function newLogGuard(chainId: number, log: { transactionHash: string; logIndex: number; blockNumber: number }): LogGuard {
  return { chainId, transactionHash: log.transactionHash, logIndex: log.logIndex, blockNumber: log.blockNumber, token: crypto.randomUUID() };
}
