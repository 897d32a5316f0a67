// POST /v1/webhooks/{id}/recover: every failed delivery of an endpoint in a time range, queued
// again at once (Svix's "recover"; decision 101). Each is resent as decision 80 resends one.
import { and, asc, eq, exists, gte, inArray, isNull, lt, sql } from "drizzle-orm";
import { kickWebhooks } from "../../durable-objects/stubs";
import { webhookDeliveries, webhookEndpoints } from "../../db/schema";
import type { ServiceContext } from "../context";
import { ownEndpoint } from "./endpoints";

/** Deliveries queued by one call: one bounded D1 update; the caller repeats while `more`. */
export const RECOVER_MAX_PER_CALL = 1_000;

export interface RecoverRange {
  since: Date;
  until: Date;
}

export async function recoverFailedDeliveries(ctx: ServiceContext, projectId: string, endpointId: string, range: RecoverRange) {
  const now = new Date();
  const failedInRange = and(
    eq(webhookDeliveries.endpointId, endpointId),
    eq(webhookDeliveries.status, "failed"),
    gte(webhookDeliveries.createdAt, range.since),
    lt(webhookDeliveries.createdAt, range.until),
  );
  const oldestFailed = ctx.db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(failedInRange).orderBy(asc(webhookDeliveries.createdAt)).limit(RECOVER_MAX_PER_CALL);
  const liveEndpoint = and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.projectId, projectId), isNull(webhookEndpoints.deletedAt));
  // The update checks the endpoint itself, so a delete landing meanwhile queues nothing; the
  // check for more runs after it in the same batch and so sees only what it left failed.
  const [queued, left] = await ctx.db.batch([
    ctx.db
      .update(webhookDeliveries)
      .set({ status: "pending", attempts: 0, nextAttemptAt: now, windowStartedAt: now, deliveredAt: null })
      .where(and(inArray(webhookDeliveries.id, oldestFailed), exists(ctx.db.select({ one: sql`1` }).from(webhookEndpoints).where(liveEndpoint))))
      .returning({ id: webhookDeliveries.id }),
    ctx.db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(failedInRange).limit(1),
  ]);
  if (queued.length === 0) await ownEndpoint(ctx, projectId, endpointId);
  else await kickWebhooks(ctx.env, projectId);
  return { requeued: queued.length, more: left.length > 0 };
}
