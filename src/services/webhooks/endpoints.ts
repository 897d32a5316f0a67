// POST/GET/DELETE /v1/webhooks, secret rotation, enabling, the delivery log and resends.
import { and, desc, eq, exists, isNull, ne, sql } from "drizzle-orm";
import { kickWebhooks } from "../durable-object-stubs";
import { webhookDeliveries, webhookEndpoints } from "../../db/schema";
import { AppError, notFound, validationError } from "../../lib/errors";
import type { ServiceContext } from "../context";
import { DELIVERY_WINDOW_MS, WEBHOOK_EVENTS, type WebhookEvent } from "./events";
import { endpointSecret } from "./signing";
import { checkWebhookUrl, refusedEndpointUrl } from "./webhook-url";

export const MAX_ENDPOINTS_PER_PROJECT = 20;

type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** How long a rotated-out secret is honoured by default, and at most (decision 88). */
export const PREVIOUS_SECRET_DEFAULT_SECONDS = 24 * 60 * 60;
export const PREVIOUS_SECRET_MAX_SECONDS = 7 * 24 * 60 * 60;

const endpointView = (row: EndpointRow, nowMs = Date.now()) => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events) as WebhookEvent[],
  status: row.disabledAt ? ("disabled" as const) : ("enabled" as const),
  failingSince: row.failingSince?.toISOString() ?? null,
  disabledAt: row.disabledAt?.toISOString() ?? null,
  disabledReason: row.disabledReason,
  secretVersion: row.secretVersion,
  previousSecretExpiresAt: row.previousSecretUntil && row.previousSecretUntil.getTime() > nowMs ? row.previousSecretUntil.toISOString() : null,
  createdAt: row.createdAt.toISOString(),
});

export async function registerEndpoint(ctx: ServiceContext, projectId: string, input: { url: string; events: string[] }) {
  const url = checkWebhookUrl(ctx.env, input.url);
  const unknown = input.events.filter((event) => !(WEBHOOK_EVENTS as readonly string[]).includes(event));
  if (unknown.length) throw validationError("body.events", `unknown events: ${unknown.join(", ")} (known: ${WEBHOOK_EVENTS.join(", ")})`);
  const events = [...new Set(input.events)].sort();

  const id = crypto.randomUUID();
  // Everything that can fail comes before the insert: once the endpoint exists, the answer (and
  // an Idempotency-Key replay of it) must be the 201 with its secret.
  const secret = await endpointSecret(ctx.env.WALLET_MNEMONIC, id);
  const createdAt = new Date();
  // One statement checks and inserts, so two identical registrations sent together cannot both
  // pass a check made before either insert (nor two requests push a project past the cap).
  const inserted = await ctx.env.DB.prepare(
    `insert into webhook_endpoints (id, project_id, url, events, created_at)
     select ?1, ?2, ?3, ?4, ?5
     where not exists (select 1 from webhook_endpoints where project_id = ?2 and url = ?3 and deleted_at is null)
       and (select count(*) from webhook_endpoints where project_id = ?2 and deleted_at is null) < ?6`,
  )
    .bind(id, projectId, url, JSON.stringify(events), createdAt.getTime(), MAX_ENDPOINTS_PER_PROJECT)
    .run();
  if (!inserted.meta.changes) {
    const live = await liveEndpoints(ctx, projectId);
    const same = live.find((row) => row.url === url);
    if (same?.disabledAt) throw disabledConflict("this URL is already registered: its endpoint", same);
    if (same) throw new AppError("conflict", "this URL is already registered; delete it first to change its events");
    throw new AppError("conflict", `a project can have at most ${MAX_ENDPOINTS_PER_PROJECT} webhook endpoints`);
  }
  const row: EndpointRow = {
    ...{ id, projectId, url, events: JSON.stringify(events), secretVersion: 1, previousSecretUntil: null, createdAt, deletedAt: null },
    ...{ disabledAt: null, disabledReason: null, failingSince: null, lastFailedAt: null },
  };
  return { ...endpointView(row), secret };
}

/**
 * A new signing secret for the endpoint (version + 1), shown once; deliveries also carry a
 * signature with the previous secret for `keepPreviousForSeconds` (default 24 h, 0 for none), so
 * receivers can switch without dropping events. The new secret is derived before the write, and
 * the write requires the version it was derived for: a rotation another one overtook gets 409.
 */
export async function rotateEndpointSecret(ctx: ServiceContext, projectId: string, id: string, input: { keepPreviousForSeconds?: number }) {
  const current = await ownEndpoint(ctx, projectId, id);
  const secretVersion = current.secretVersion + 1;
  const secret = await endpointSecret(ctx.env.WALLET_MNEMONIC, id, secretVersion);
  const now = Date.now();
  const keepFor = input.keepPreviousForSeconds ?? PREVIOUS_SECRET_DEFAULT_SECONDS;
  const [rotated] = await ctx.db
    .update(webhookEndpoints)
    .set({ secretVersion, previousSecretUntil: keepFor > 0 ? new Date(now + keepFor * 1000) : null })
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.secretVersion, current.secretVersion), isNull(webhookEndpoints.deletedAt)))
    .returning();
  if (!rotated) {
    await ownEndpoint(ctx, projectId, id);
    throw new AppError("conflict", "the secret was rotated by another request meanwhile; list the endpoint to see its version");
  }
  return { ...endpointView(rotated, now), secret };
}

/** A project's endpoints that are not deleted, newest first. */
const liveEndpoints = (ctx: ServiceContext, projectId: string) =>
  ctx.db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.projectId, projectId), isNull(webhookEndpoints.deletedAt)))
    .orderBy(desc(webhookEndpoints.createdAt))
    .all();

export async function listEndpoints(ctx: ServiceContext, projectId: string) {
  return (await liveEndpoints(ctx, projectId)).map((row) => endpointView(row));
}

async function ownEndpoint(ctx: ServiceContext, projectId: string, id: string) {
  const row = await ctx.db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.projectId, projectId), isNull(webhookEndpoints.deletedAt)))
    .get();
  if (!row) throw notFound("webhook endpoint");
  return row;
}

/** A 409 for a disabled endpoint (decision 108), naming why and the route that enables it. */
const disabledConflict = (what: string, endpoint: Pick<EndpointRow, "id" | "disabledReason">) =>
  new AppError("conflict", `${what} is disabled (${endpoint.disabledReason}); enable it first with POST /v1/webhooks/${endpoint.id}/enable`);

/** A delivery sent again, as decision 80 sends it: due now, a new 24 h window, the backoff from the start. */
export const queuedAgain = (now: Date) => ({ status: "pending" as const, attempts: 0, nextAttemptAt: now, windowStartedAt: now, deliveredAt: null });

/** In a write's condition: the endpoint is still the project's, live and enabled, so a delete or a disabling landing meanwhile queues nothing. */
export const endpointStillLive = (ctx: ServiceContext, projectId: string, endpointId: string) =>
  exists(
    ctx.db
      .select({ one: sql`1` })
      .from(webhookEndpoints)
      .where(
        and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.projectId, projectId), isNull(webhookEndpoints.deletedAt), isNull(webhookEndpoints.disabledAt)),
      ),
  );

/**
 * The project's live endpoint, for queueing deliveries again: a disabled one (decision 108) is a
 * 409 until it is enabled, and so is one whose stored URL the rules now refuse (decision 63),
 * since its deliveries would fail again at once, unsent.
 */
export async function resendableEndpoint(ctx: ServiceContext, projectId: string, id: string) {
  const endpoint = await ownEndpoint(ctx, projectId, id);
  if (endpoint.disabledAt) throw disabledConflict("the endpoint", endpoint);
  const refused = refusedEndpointUrl(ctx.env, endpoint.url);
  if (refused) throw new AppError("conflict", `the endpoint's URL is refused (it ${refused}), so its deliveries would fail unsent; register a public https URL`);
  return endpoint;
}

/** Stops deliveries at once; the endpoint's delivery rows stay in D1. */
export async function deleteEndpoint(ctx: ServiceContext, projectId: string, id: string) {
  await ownEndpoint(ctx, projectId, id);
  await ctx.db.batch([
    ctx.db.update(webhookEndpoints).set({ deletedAt: new Date() }).where(eq(webhookEndpoints.id, id)),
    ctx.db
      .update(webhookDeliveries)
      .set({ status: "failed", lastError: "endpoint deleted" })
      .where(and(eq(webhookDeliveries.endpointId, id), eq(webhookDeliveries.status, "pending"))),
  ]);
}

/**
 * Sends to a disabled endpoint again (decision 108), its failure run ended. Deliveries that
 * failed meanwhile stay failed: `recoverSince` is the `since` that makes POST
 * /v1/webhooks/{id}/recover send them all (events created up to a delivery window before the
 * run began, whose retries the run failed). Enabling an enabled endpoint changes nothing.
 */
export async function enableEndpoint(ctx: ServiceContext, projectId: string, id: string) {
  const before = await ownEndpoint(ctx, projectId, id);
  if (!before.disabledAt) return { ...endpointView(before), recoverSince: null };
  const [enabled] = await ctx.db
    .update(webhookEndpoints)
    .set({ disabledAt: null, disabledReason: null, failingSince: null, lastFailedAt: null })
    .where(and(eq(webhookEndpoints.id, id), isNull(webhookEndpoints.deletedAt), eq(webhookEndpoints.disabledAt, before.disabledAt)))
    .returning();
  // Enabled (or deleted) by another request meanwhile: its state, without this one's range.
  if (!enabled) return { ...endpointView(await ownEndpoint(ctx, projectId, id)), recoverSince: null };
  const runStart = (before.failingSince ?? before.disabledAt).getTime();
  return { ...endpointView(enabled), recoverSince: new Date(runStart - DELIVERY_WINDOW_MS).toISOString() };
}

export async function listDeliveries(ctx: ServiceContext, projectId: string, endpointId: string, query: { page: number; limit: number }) {
  await ownEndpoint(ctx, projectId, endpointId);
  const rows = await ctx.db
    .select()
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, endpointId))
    .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
    .limit(query.limit)
    .offset((query.page - 1) * query.limit)
    .all();
  return rows.map(deliveryView);
}

type DeliveryRow = typeof webhookDeliveries.$inferSelect;

const deliveryView = (row: DeliveryRow) => ({
  id: row.id,
  eventId: row.eventId,
  eventType: row.eventType,
  status: row.status,
  attempts: row.attempts,
  lastStatusCode: row.lastStatusCode,
  lastError: row.lastError,
  nextAttemptAt: row.status === "pending" ? row.nextAttemptAt.toISOString() : null,
  createdAt: row.createdAt.toISOString(),
  deliveredAt: row.deliveredAt?.toISOString() ?? null,
});

/**
 * Queues a finished delivery (failed, or delivered and wanted again) for a new try now, with the
 * payload, event id and delivery id it had and a new 24 h retry window from now; its attempts
 * count again from zero, so the backoff starts over (decision 80). One conditional update that
 * also requires the project's endpoint to be live: two resends sent together queue it once (the
 * other gets 409), and an endpoint deleted meanwhile gets nothing queued (404). An endpoint whose
 * URL is now refused is a 409 first.
 */
export async function resendDelivery(ctx: ServiceContext, projectId: string, endpointId: string, deliveryId: string) {
  await resendableEndpoint(ctx, projectId, endpointId);
  const [queued] = await ctx.db
    .update(webhookDeliveries)
    .set(queuedAgain(new Date()))
    .where(
      and(
        eq(webhookDeliveries.id, deliveryId),
        eq(webhookDeliveries.endpointId, endpointId),
        ne(webhookDeliveries.status, "pending"),
        endpointStillLive(ctx, projectId, endpointId),
      ),
    )
    .returning();
  if (!queued) {
    // Deleted or disabled meanwhile: its own 404 or 409.
    await resendableEndpoint(ctx, projectId, endpointId);
    const row = await ctx.db
      .select({ nextAttemptAt: webhookDeliveries.nextAttemptAt })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.endpointId, endpointId)))
      .get();
    if (!row) throw notFound("webhook delivery");
    throw new AppError("conflict", `this delivery is already queued; its next attempt is at ${row.nextAttemptAt.toISOString()}`);
  }
  await kickWebhooks(ctx.env, projectId);
  return deliveryView(queued);
}
