// When the dispatcher stops sending to an endpoint (decision 108): the receiver said the
// subscription is gone (410 Gone, the REST Hooks convention), or every attempt has failed for
// DISABLE_AFTER_FAILING_MS. A disabled endpoint's events are still recorded, as failed deliveries,
// so enabling it and recovering the range (decision 101) loses nothing.
import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { webhookDeliveries, webhookEndpoints } from "../../db/schema";
import type { ServiceContext } from "../context";
import type { AttemptResult } from "./attempt";

/** Svix disables after 5 days of failures; Stripe after "several days". */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 60 * 60 * 1000;

export interface EndpointHealth {
  id: string;
  failingSince: Date | null;
}

/** Why this failed attempt disables the endpoint, or null when it does not. */
export function disableReason(result: AttemptResult, failingSince: Date | null, attemptedAt: number): string | null {
  if (result.status === 410) return "it answered 410 Gone";
  if (failingSince !== null && attemptedAt - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS) {
    return `every attempt failed from ${failingSince.toISOString()} to ${new Date(attemptedAt).toISOString()}`;
  }
  return null;
}

/** The lastError of a delivery the endpoint's disabling stopped (and of one queued while disabled). */
export const disabledDeliveryError = (reason: string) => `endpoint disabled: ${reason}`;

/**
 * Disables the endpoint and fails its pending deliveries in one batch. Only a live, enabled
 * endpoint is changed: a delete or an earlier disable landing meanwhile keeps its own reason.
 */
async function disableEndpoint(ctx: ServiceContext, endpointId: string, reason: string, at: number) {
  await ctx.db.batch([
    ctx.db
      .update(webhookEndpoints)
      .set({ disabledAt: new Date(at), disabledReason: reason, failingSince: null })
      .where(and(eq(webhookEndpoints.id, endpointId), isNull(webhookEndpoints.deletedAt), isNull(webhookEndpoints.disabledAt))),
    ctx.db
      .update(webhookDeliveries)
      .set({ status: "failed", lastError: disabledDeliveryError(reason), nextAttemptAt: new Date(at) })
      .where(and(eq(webhookDeliveries.endpointId, endpointId), eq(webhookDeliveries.status, "pending"))),
  ]);
}

/**
 * Records what an attempt says about its endpoint; true when the endpoint is now disabled and its
 * turn must end. Writes only when the state changes: the first failure after an answered attempt,
 * the first success after failures, or the disabling.
 */
export async function noteAttempt(ctx: ServiceContext, endpoint: EndpointHealth, result: AttemptResult, attemptedAt: number): Promise<boolean> {
  if (result.ok) {
    if (endpoint.failingSince === null) return false;
    endpoint.failingSince = null;
    await ctx.db.update(webhookEndpoints).set({ failingSince: null }).where(and(eq(webhookEndpoints.id, endpoint.id), isNotNull(webhookEndpoints.failingSince)));
    return false;
  }
  const reason = disableReason(result, endpoint.failingSince, attemptedAt);
  if (reason !== null) {
    await disableEndpoint(ctx, endpoint.id, reason, attemptedAt);
    return true;
  }
  if (endpoint.failingSince === null) {
    endpoint.failingSince = new Date(attemptedAt);
    await ctx.db.update(webhookEndpoints).set({ failingSince: endpoint.failingSince }).where(and(eq(webhookEndpoints.id, endpoint.id), isNull(webhookEndpoints.failingSince)));
  }
  return false;
}
