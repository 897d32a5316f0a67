// The delivery log (`webhook_deliveries`) keeps a finished delivery 30 days after its last
// attempt, then the sweep deletes it: each row holds a copy of its event, and the table would
// otherwise grow with every event for as long as the project runs (decision 59).
export const DELIVERY_LOG_DAYS = 30;
const RETENTION_MS = DELIVERY_LOG_DAYS * 24 * 60 * 60 * 1000;
/** Per status and sweep (the cron runs every minute): a bounded write, however large the backlog. */
const ROWS_PER_SWEEP = 1_000;

export async function purgeDeliveryLog(db: D1Database, nowMs: number): Promise<void> {
  // A finished row's next_attempt_at is its last attempt, its failure, or (failed by an endpoint's
  // deletion) when it was due; on webhook_deliveries_due_idx.
  const finishedBefore = (status: "delivered" | "failed") =>
    db
      .prepare(
        `delete from webhook_deliveries
         where id in (select id from webhook_deliveries where status = ? and next_attempt_at < ? limit ?)`,
      )
      .bind(status, nowMs - RETENTION_MS, ROWS_PER_SWEEP);
  await db.batch([finishedBefore("delivered"), finishedBefore("failed")]);
}
