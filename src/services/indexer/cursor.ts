// indexer_cursors: per chain, the last block whose logs are applied, and a lease so only one
// run reads a chain at a time (cron and POST /v1/admin/index may overlap). Logs must be applied
// in chain order: two runs interleaving different collection sets could apply an older transfer
// after a newer one.

export async function ensureCursor(db: D1Database, chainId: number, initialBlock: number): Promise<void> {
  await db
    .prepare("insert or ignore into indexer_cursors (chain_id, last_block, updated_at) values (?, ?, ?)")
    .bind(chainId, initialBlock, Date.now())
    .run();
}

export async function readCursor(db: D1Database, chainId: number): Promise<number | null> {
  const row = await db.prepare("select last_block from indexer_cursors where chain_id = ?").bind(chainId).first<{ last_block: number }>();
  return row?.last_block ?? null;
}

/** Takes the chain's lease unless another run holds a live one; returns the cursor when taken. */
export async function acquireLease(db: D1Database, chainId: number, token: string, untilMs: number, nowMs: number): Promise<number | null> {
  const row = await db
    .prepare(
      `update indexer_cursors set lease_token = ?, lease_until = ?
       where chain_id = ? and (lease_token is null or lease_until is null or lease_until <= ?)
       returning last_block`,
    )
    .bind(token, untilMs, chainId, nowMs)
    .first<{ last_block: number }>();
  return row?.last_block ?? null;
}

/** Moves the cursor forward and extends the lease; false when the lease was lost (stop reading). */
export async function advanceCursor(db: D1Database, chainId: number, token: string, toBlock: number, leaseUntilMs: number): Promise<boolean> {
  const result = await db
    .prepare(
      `update indexer_cursors set last_block = max(last_block, ?), lease_until = ?, updated_at = ?
       where chain_id = ? and lease_token = ?`,
    )
    .bind(toBlock, leaseUntilMs, Date.now(), chainId, token)
    .run();
  return result.meta.changes > 0;
}

/** Extends the lease without moving the cursor; false when it was lost (stop reading). */
export async function renewLease(db: D1Database, chainId: number, token: string, leaseUntilMs: number): Promise<boolean> {
  const result = await db.prepare("update indexer_cursors set lease_until = ? where chain_id = ? and lease_token = ?").bind(leaseUntilMs, chainId, token).run();
  return result.meta.changes > 0;
}

export async function releaseLease(db: D1Database, chainId: number, token: string): Promise<void> {
  await db.prepare("update indexer_cursors set lease_token = null, lease_until = null where chain_id = ? and lease_token = ?").bind(chainId, token).run();
}
