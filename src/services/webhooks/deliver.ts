// Sends a project's due deliveries. At least once: a delivery is marked delivered only after a
// 2xx answer; anything else is retried with backoff until 24 h after the event. Each endpoint is
// served in a turn of its own, side by side, so one that is down or slow holds up none of the
// project's others (decision 59).
import { and, asc, eq, isNull, lte, min } from "drizzle-orm";
import { webhookDeliveries, webhookEndpoints } from "../../db/schema";
import { settleAllOrThrow } from "../../lib/settle";
import type { ServiceContext } from "../context";
import { attemptDelivery, endpointUnavailable } from "./attempt";
import { recordAttempt, type EndpointHealth } from "./endpoint-health";
import { DELIVERY_WINDOW_MS } from "./events";
import { signingSecrets } from "./signing";
import { refusedEndpointUrl } from "./webhook-url";

export { DELIVERY_WINDOW_MS };
/** Per endpoint and alarm: a backlog of one endpoint never fills another's turn. */
export const ROWS_PER_ENDPOINT = 10;
const MAX_BACKOFF_MS = 6 * 60 * 60 * 1000;

/** base, 4×base, 16×base… (30 s, 2 min, 8 min, 32 min, 2 h, then every 6 h by default). */
export function retryDelayMs(env: Pick<Env, "WEBHOOK_RETRY_BASE_SECONDS">, attempts: number): number {
  const base = (Number(env.WEBHOOK_RETRY_BASE_SECONDS) || 30) * 1000;
  return Math.min(MAX_BACKOFF_MS, base * 4 ** Math.max(0, attempts - 1));
}

/** When a delivery's 24 h retry window started: its event, or its last resend (decision 80). */
const windowStart = (delivery: Pick<typeof webhookDeliveries.$inferSelect, "createdAt" | "windowStartedAt">) =>
  (delivery.windowStartedAt ?? delivery.createdAt).getTime();

/**
 * When a delivery that failed its `attempts`-th try at `nowMs` is tried again, or null when the
 * window is over. The last retry lands on the window's end rather than being skipped. A wait the
 * endpoint asked for (Retry-After) is kept when it is longer than the backoff step, up to 6 h; a
 * shorter one does not make the service retry sooner than its schedule.
 */
export function nextAttemptAt(
  env: Pick<Env, "WEBHOOK_RETRY_BASE_SECONDS">,
  attempts: number,
  windowStartMs: number,
  nowMs: number,
  askedWaitMs: number | null = null,
): number | null {
  const deadline = windowStartMs + DELIVERY_WINDOW_MS;
  const delay = Math.max(retryDelayMs(env, attempts), Math.min(askedWaitMs ?? 0, MAX_BACKOFF_MS));
  return nowMs >= deadline ? null : Math.min(nowMs + delay, deadline);
}

// Pending deliveries of endpoints neither deleted nor disabled. Deleting or disabling an endpoint
// fails its pending rows in the same batch; the join keeps any row that escaped that unsent.
const onLiveEndpoint = and(isNull(webhookEndpoints.deletedAt), isNull(webhookEndpoints.disabledAt));
const pendingOnLiveEndpoint = and(eq(webhookDeliveries.status, "pending"), onLiveEndpoint);

async function stillPending(ctx: ServiceContext, deliveryId: string): Promise<boolean> {
  const row = await ctx.db.select({ status: webhookDeliveries.status }).from(webhookDeliveries).where(eq(webhookDeliveries.id, deliveryId)).get();
  return row?.status === "pending";
}

export function liveEndpoints({ db }: ServiceContext, projectId: string) {
  return db
    .select({
      id: webhookEndpoints.id,
      url: webhookEndpoints.url,
      secretVersion: webhookEndpoints.secretVersion,
      previousSecretUntil: webhookEndpoints.previousSecretUntil,
      failingSince: webhookEndpoints.failingSince,
    })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.projectId, projectId), onLiveEndpoint));
}

// On webhook_deliveries_endpoint_due_idx: the endpoint's due rows, never its delivered history.
export function dueForEndpoint({ db }: ServiceContext, endpointId: string, now: number) {
  return db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, "pending"), lte(webhookDeliveries.nextAttemptAt, new Date(now))))
    .orderBy(asc(webhookDeliveries.nextAttemptAt))
    .limit(ROWS_PER_ENDPOINT);
}

// On webhook_deliveries_project_due_idx: one project's backlog (an endpoint that has not answered
// for a day) is never read by another project's dispatcher (decision 34).
export function nextDueDelivery({ db }: ServiceContext, projectId: string) {
  return db
    .select({ at: min(webhookDeliveries.nextAttemptAt) })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(and(eq(webhookDeliveries.projectId, projectId), pendingOnLiveEndpoint));
}

/**
 * An endpoint that did not answer (or answered 5xx/429) is down for all its events, not just the
 * one tried: its other due rows wait as long as that one, without spending an attempt each (10 s
 * per attempt when it times out), and go just before it next time, so one event the endpoint
 * always refuses cannot keep the others from their own attempts. Rows whose window is over fail.
 */
function deferEndpoint(ctx: ServiceContext, endpointId: string, until: number, now: number) {
  // The row's window end (windowStart in SQL; ?1 is the window's length).
  const windowEnd = "(coalesce(window_started_at, created_at) + ?1)";
  return ctx.env.DB.prepare(
    `update webhook_deliveries
     set status = case when ${windowEnd} <= ?2 then 'failed' else status end,
         last_error = case when ${windowEnd} <= ?2 then 'endpoint unavailable until the window ended' else last_error end,
         next_attempt_at = case when ${windowEnd} <= ?2 then ?2 else min(?3 - 1, ${windowEnd}) end
     where endpoint_id = ?4 and status = 'pending' and next_attempt_at <= ?2`,
  )
    .bind(DELIVERY_WINDOW_MS, now, until, endpointId)
    .run();
}

/** An endpoint whose URL the rules now refuse gets nothing: its pending rows fail, unsent. */
function failRefusedEndpoint(ctx: ServiceContext, endpointId: string, problem: string, now: number) {
  return ctx.db
    .update(webhookDeliveries)
    .set({ status: "failed", lastError: `endpoint URL refused: it ${problem}; register a public https URL`, nextAttemptAt: new Date(now) })
    .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, "pending")));
}

type DeliveringEndpoint = Parameters<typeof signingSecrets>[1] & EndpointHealth;

async function deliverToEndpoint(ctx: ServiceContext, endpoint: DeliveringEndpoint, now: number): Promise<void> {
  const due = await dueForEndpoint(ctx, endpoint.id, now).all();
  if (!due.length) return;
  // A stored URL the rules refuse (registered under looser rules, or written directly): decision 32.
  const refused = refusedEndpointUrl(ctx.env, endpoint.url);
  if (refused) {
    await failRefusedEndpoint(ctx, endpoint.id, refused, now);
    return;
  }
  const secrets = await signingSecrets(ctx.env.WALLET_MNEMONIC, endpoint, now);
  for (const [index, delivery] of due.entries()) {
    // A turn can take a while (10 s per unanswered attempt): an endpoint deleted meanwhile has had
    // its rows failed, and none of them may go out after that. The first row was just read.
    if (index > 0 && !(await stillPending(ctx, delivery.id))) return;
    const result = await attemptDelivery(endpoint.url, secrets, delivery);
    const attemptedAt = Date.now();
    const attempts = delivery.attempts + 1;
    const retryAt = result.ok ? null : nextAttemptAt(ctx.env, attempts, windowStart(delivery), attemptedAt, result.retryAfterMs);
    const rowUpdate = ctx.db
      .update(webhookDeliveries)
      .set({
        attempts,
        lastStatusCode: result.status,
        lastError: result.error,
        status: result.ok ? "delivered" : retryAt === null ? "failed" : "pending",
        deliveredAt: result.ok ? new Date(attemptedAt) : null,
        nextAttemptAt: new Date(retryAt ?? attemptedAt),
      })
      // Only while still pending: deleting the endpoint during the attempt failed the row, and
      // this answer must not bring it back for another retry.
      .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.status, "pending")));
    if (await recordAttempt(ctx, endpoint, result, attemptedAt, rowUpdate)) return;
    if (!result.ok && endpointUnavailable(result)) {
      // Until this delivery's own next try: near its window's end that is sooner than a full
      // backoff step (up to 6 h), which the others must not wait out. One whose window just
      // ended holds them a base step.
      await deferEndpoint(ctx, endpoint.id, retryAt ?? attemptedAt + retryDelayMs(ctx.env, 1), attemptedAt);
      return;
    }
  }
}

// A Worker has at most six requests waiting for response headers at once; more queue, and the
// queue counts against each attempt's timeout. Five turns at a time keep a healthy endpoint's
// request from timing out behind hung ones.
const TURNS_AT_ONCE = 5;

/** Delivers what is due now; returns when the next pending delivery is due (ms), or null. */
export async function deliverDue(ctx: ServiceContext, projectId: string): Promise<number | null> {
  const now = Date.now();
  const waiting = await liveEndpoints(ctx, projectId).all();
  const turns = Array.from({ length: Math.min(TURNS_AT_ONCE, waiting.length) }, async () => {
    for (let endpoint = waiting.shift(); endpoint; endpoint = waiting.shift()) await deliverToEndpoint(ctx, endpoint, now);
  });
  // Every turn ends before the alarm does, even when one fails: the next alarm must not find
  // this one's attempts still in flight.
  await settleAllOrThrow(turns);
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
