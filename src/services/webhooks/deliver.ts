// Sends a project's due deliveries. At least once: a delivery is marked delivered only after a
// 2xx answer; anything else is retried with backoff until 24 h after the event.
import { and, asc, eq, isNull, lte, min } from "drizzle-orm";
import { webhookDeliveries, webhookEndpoints } from "../../db/schema";
import type { ServiceContext } from "../context";
import { endpointSecret, signatureHeader } from "./signing";

export const DELIVERY_WINDOW_MS = 24 * 60 * 60 * 1000;
const BATCH = 25;
const TIMEOUT_MS = 10_000;
const MAX_BACKOFF_MS = 6 * 60 * 60 * 1000;

/** base, 4×base, 16×base… (30 s, 2 min, 8 min, 32 min, 2 h, then every 6 h by default). */
export function retryDelayMs(env: Pick<Env, "WEBHOOK_RETRY_BASE_SECONDS">, attempts: number): number {
  const base = (Number(env.WEBHOOK_RETRY_BASE_SECONDS) || 30) * 1000;
  return Math.min(MAX_BACKOFF_MS, base * 4 ** Math.max(0, attempts - 1));
}

async function attempt(url: string, secret: string, delivery: typeof webhookDeliveries.$inferSelect): Promise<{ ok: boolean; status: number | null; error: string | null }> {
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "Mintyard-Webhooks/1",
        "mintyard-event": delivery.eventType,
        "mintyard-delivery": delivery.id,
        "mintyard-signature": await signatureHeader(secret, timestamp, delivery.payload),
      },
      body: delivery.payload,
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    await response.body?.cancel();
    return { ok: response.status >= 200 && response.status < 300, status: response.status, error: response.ok ? null : `HTTP ${response.status}` };
  } catch (error) {
    return { ok: false, status: null, error: error instanceof Error ? error.name : "request failed" };
  }
}

// Pending deliveries of endpoints not deleted. Deleting an endpoint fails its pending rows in the
// same batch; the join keeps any row that escaped that (written by an older version) unsent.
const pendingOnLiveEndpoint = and(eq(webhookDeliveries.status, "pending"), isNull(webhookEndpoints.deletedAt));

async function stillPending(ctx: ServiceContext, deliveryId: string): Promise<boolean> {
  const row = await ctx.db.select({ status: webhookDeliveries.status }).from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).get();
  return row?.status === "pending";
}

// Both run on webhook_deliveries_project_due_idx: one project's backlog (an endpoint that has not
// answered for a day) is never read by another project's dispatcher (decision 34).
export function dueDeliveries({ db }: ServiceContext, projectId: string, now: number) {
  return db
    .select({ delivery: webhookDeliveries, url: webhookEndpoints.url })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(and(eq(webhookDeliveries.projectId, projectId), pendingOnLiveEndpoint, lte(webhookDeliveries.nextAttemptAt, new Date(now))))
    .orderBy(asc(webhookDeliveries.createdAt))
    .limit(BATCH);
}

export function nextDueDelivery({ db }: ServiceContext, projectId: string) {
  return db
    .select({ at: min(webhookDeliveries.nextAttemptAt) })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(and(eq(webhookDeliveries.projectId, projectId), pendingOnLiveEndpoint));
}

/** Delivers what is due now; returns when the next pending delivery is due (ms), or null. */
export async function deliverDue(ctx: ServiceContext, projectId: string): Promise<number | null> {
  const due = await dueDeliveries(ctx, projectId, Date.now()).all();

  for (const [index, { delivery, url }] of due.entries()) {
    // A batch can take minutes (10 s per unanswering endpoint): an endpoint deleted meanwhile has
    // had its rows failed, and none of them may go out after that. The first row was just read.
    if (index > 0 && !(await stillPending(ctx, delivery.id))) continue;
    const result = await attempt(url, await endpointSecret(ctx.env.WALLET_MNEMONIC, delivery.endpointId), delivery);
    const attempts = delivery.attempts + 1;
    const retryAt = Date.now() + retryDelayMs(ctx.env, attempts);
    const expired = retryAt > delivery.createdAt.getTime() + DELIVERY_WINDOW_MS;
    await ctx.db
      .update(webhookDeliveries)
      .set({
        attempts,
        lastStatusCode: result.status,
        lastError: result.error,
        status: result.ok ? "delivered" : expired ? "failed" : "pending",
        deliveredAt: result.ok ? new Date() : null,
        nextAttemptAt: new Date(result.ok || expired ? Date.now() : retryAt),
      })
      // Only while still pending: deleting the endpoint during the attempt failed the row, and
      // this answer must not bring it back for another retry.
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.status, "pending")));
  }

  // Same filter as the due query: a row it skips must not keep waking the dispatcher.
  const next = await nextDueDelivery(ctx, projectId).get();
  return next?.at ? Math.max(next.at.getTime(), Date.now()) : null;
}

/** Projects with deliveries due (for the cron, which re-kicks dispatchers that lost their alarm). */
export async function projectsWithDueDeliveries(ctx: ServiceContext): Promise<string[]> {
  const rows = await ctx.db
    .selectDistinct({ projectId: webhookDeliveries.projectId })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(and(pendingOnLiveEndpoint, lte(webhookDeliveries.nextAttemptAt, new Date())))
    .limit(100)
    .all();
  return rows.map((row) => row.projectId);
}
