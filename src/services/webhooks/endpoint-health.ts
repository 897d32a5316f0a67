// When the dispatcher stops sending to an endpoint (decision 108): the receiver said the
// subscription is gone (410 Gone, the REST Hooks convention), or a failure run has lasted
// DISABLE_AFTER_FAILING_MS. A disabled endpoint's events are still recorded, as failed deliveries,
// so enabling it and recovering the range (decision 101) loses nothing.
import { and, eq, isNotNull, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { webhookEndpoints } from "../../db/schema";
import type { ServiceContext } from "../context";
import type { AttemptResult } from "./attempt";
import { DELIVERY_WINDOW_MS, DISABLED_ERROR_PREFIX, enqueueWebhookStatement, webhookPayload } from "./events";

/** Svix disables after 5 days of failures; Stripe after "several days". */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 60 * 60 * 1000;
/**
 * A failed attempt this long after the run's previous one starts a new run: a run measures an
 * endpoint that kept failing while it was tried, not one that failed once and was then left alone
 * (nothing is attempted once a failed delivery's window is over).
 */
const FAILURE_RUN_GAP_MS = DELIVERY_WINDOW_MS;

export interface EndpointHealth {
  id: string;
  url: string;
  failingSince: Date | null;
}

/** Why this failed attempt disables the endpoint, or null when it does not. */
function disableReason(result: AttemptResult, failingSince: Date, attemptedAt: number): string | null {
  if (result.status === 410) return "it answered 410 Gone";
  if (attemptedAt - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS) {
    return `every attempt failed from ${failingSince.toISOString()} to ${new Date(attemptedAt).toISOString()}`;
  }
  return null;
}

/** The lastError of a delivery the endpoint's disabling stopped (and of one queued while disabled). */
const disabledDeliveryError = (reason: string) => `${DISABLED_ERROR_PREFIX}${reason}`;

/**
 * Adds a failed attempt to the endpoint's run: a new run when there is none or the previous
 * failure is over FAILURE_RUN_GAP_MS old. Returns when the run began.
 */
const failureRun = (ctx: ServiceContext, endpointId: string, at: number) =>
  ctx.db
    .update(webhookEndpoints)
    .set({
      failingSince: sql`case when ${webhookEndpoints.failingSince} is null or ${webhookEndpoints.lastFailedAt} is null
        or ${webhookEndpoints.lastFailedAt} < ${at - FAILURE_RUN_GAP_MS} then ${at} else ${webhookEndpoints.failingSince} end`,
      lastFailedAt: new Date(at),
    })
    .where(eq(webhookEndpoints.id, endpointId))
    .returning({ failingSince: webhookEndpoints.failingSince });

/**
 * Disables the endpoint, fails its pending deliveries and queues `webhook_endpoint.disabled` for
 * the project's endpoints subscribed to it (decision 111), in one batch. Only a live, enabled
 * endpoint is changed, and the rest only when this disabling is the one recorded: a delete or
 * another disabling landing meanwhile keeps its own reason. The failure run stays, so the view
 * and enabling can say since when deliveries failed.
 */
async function disableEndpoint(ctx: ServiceContext, endpoint: EndpointHealth, failingSince: Date, reason: string, at: number) {
  const endpointId = endpoint.id;
  const disabledAt = new Date(at);
  const thisDisabling = { sql: "exists (select 1 from webhook_endpoints where id = ? and disabled_at = ?)", params: [endpointId, at] };
  const notice = webhookPayload("webhook_endpoint.disabled", {
    endpoint: { id: endpointId, url: endpoint.url, status: "disabled", failingSince: failingSince.toISOString(), disabledAt: disabledAt.toISOString(), disabledReason: reason },
  });
  await ctx.env.DB.batch([
    ctx.env.DB.prepare("update webhook_endpoints set disabled_at = ?, disabled_reason = ? where id = ? and deleted_at is null and disabled_at is null").bind(
      at,
      reason,
      endpointId,
    ),
    ctx.env.DB.prepare(`update webhook_deliveries set status = 'failed', last_error = ?, next_attempt_at = ? where endpoint_id = ? and status = 'pending' and ${thisDisabling.sql}`).bind(
      disabledDeliveryError(reason),
      at,
      endpointId,
      ...thisDisabling.params,
    ),
    // The disabled endpoint's own copy, if it subscribed, is recorded failed like any event it
    // misses. No kick: this runs in the dispatcher's own turn, whose next-due read at the end of
    // the alarm finds the other endpoints' rows, due now.
    enqueueWebhookStatement(ctx.env.DB, notice, { sql: "select project_id from webhook_endpoints where id = ?", params: [endpointId] }, thisDisabling),
  ]);
}

/**
 * Writes an attempt's delivery row (`rowUpdate`) and, in the same batch, what the attempt says
 * about its endpoint; true when the endpoint is now disabled and its turn must end. An answered
 * attempt adds a write only when it ends a run, so a healthy endpoint costs nothing more; a
 * failed one adds one statement to the row's round trip.
 */
export async function recordAttempt(
  ctx: ServiceContext,
  endpoint: EndpointHealth,
  result: AttemptResult,
  attemptedAt: number,
  rowUpdate: BatchItem<"sqlite">,
): Promise<boolean> {
  if (result.ok) {
    if (endpoint.failingSince === null) {
      await rowUpdate;
      return false;
    }
    endpoint.failingSince = null;
    const runEnded = ctx.db
      .update(webhookEndpoints)
      .set({ failingSince: null, lastFailedAt: null })
      .where(and(eq(webhookEndpoints.id, endpoint.id), isNotNull(webhookEndpoints.failingSince)));
    await ctx.db.batch([rowUpdate, runEnded]);
    return false;
  }
  const [, [run]] = await ctx.db.batch([rowUpdate, failureRun(ctx, endpoint.id, attemptedAt)]);
  const failingSince = run?.failingSince ?? new Date(attemptedAt);
  endpoint.failingSince = failingSince;
  const reason = disableReason(result, failingSince, attemptedAt);
  if (reason === null) return false;
  await disableEndpoint(ctx, endpoint, failingSince, reason, attemptedAt);
  return true;
}
