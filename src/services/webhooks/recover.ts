// POST /v1/webhooks/{id}/recover: every failed delivery of an endpoint in a time range, queued
// again at once (Svix's "recover"; decision 101). Each is resent as decision 80 resends one.
import { and, inArray, sql } from "drizzle-orm";
import { kickWebhooks } from "../durable-object-stubs";
import { webhookDeliveries } from "../../db/schema";
import type { ServiceContext } from "../context";
import { endpointStillLive, queuedAgain, resendableEndpoint } from "./endpoints";

/** Deliveries queued by one call: one bounded D1 update; the caller repeats while `more`. */
export const RECOVER_MAX_PER_CALL = 1_000;

export interface RecoverRange {
  since: Date;
  until: Date;
}

export async function recoverFailedDeliveries(ctx: ServiceContext, projectId: string, endpointId: string, range: RecoverRange) {
  // A refused URL's deliveries would fail again at once, and each call would pick the same ones.
  await resendableEndpoint(ctx, projectId, endpointId);
  const failedInRange = sql`endpoint_id = ${endpointId} and status = 'failed' and created_at >= ${range.since.getTime()} and created_at < ${range.until.getTime()}`;
  // Named: without statistics SQLite takes (endpoint_id, created_at) for the ordered subquery and
  // walks every delivery of the range, delivered ones included.
  const oldestFailed = sql`(select id from webhook_deliveries indexed by webhook_deliveries_endpoint_status_created_idx
    where ${failedInRange} order by created_at limit ${RECOVER_MAX_PER_CALL})`;
  // The update checks the endpoint again, so a delete landing meanwhile queues nothing; the check
  // for more runs after it in the same batch and so sees only what it left failed.
  const [queued, left] = await ctx.db.batch([
    ctx.db
      .update(webhookDeliveries)
      .set(queuedAgain(new Date()))
      .where(and(inArray(webhookDeliveries.id, oldestFailed), endpointStillLive(ctx, projectId, endpointId)))
      .returning({ id: webhookDeliveries.id }),
    ctx.db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(failedInRange).limit(1),
  ]);
  if (queued.length > 0) await kickWebhooks(ctx.env, projectId);
  // Failed deliveries left and none queued: deleted or disabled since the check; its own 404 or 409.
  else if (left.length > 0) await resendableEndpoint(ctx, projectId, endpointId);
  return { requeued: queued.length, more: left.length > 0 };
}
