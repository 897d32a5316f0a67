import { createRoute, z } from "@hono/zod-openapi";
import { secretKey } from "../middleware/auth";
import { idempotency, idempotencyKeeping } from "../middleware/idempotency";
import { IsoDateTime, IsoDateTimeInput, jsonBody, jsonContent, LimitQuery, operationErrors, PageQuery, SECRET_SECURITY, Uuid, uuidPathParam } from "../../schemas/common";
import { EXAMPLE } from "../../schemas/examples";
import { WEBHOOK_EVENTS } from "../../services/webhooks/events";
import { DISABLE_AFTER_FAILING_MS } from "../../services/webhooks/endpoint-health";
import { PREVIOUS_SECRET_DEFAULT_SECONDS, PREVIOUS_SECRET_MAX_SECONDS } from "../../services/webhooks/endpoints";
import { RECOVER_MAX_PER_CALL } from "../../services/webhooks/recover";
import { registrationResponse, rotationResponse } from "../../services/webhooks/stored-response";
import { IdempotencyHeaders } from "../project-wallet/project-wallet.routes";

const tags = ["Webhooks"];
const DISABLE_AFTER_FAILING_DAYS = DISABLE_AFTER_FAILING_MS / 86_400_000;
const EventName = z.string().openapi({ enum: [...WEBHOOK_EVENTS], example: "transaction.confirmed" });

export const WebhookEndpointSchema = z
  .object({
    id: Uuid,
    url: z.string(),
    events: z.array(EventName),
    status: z.enum(["enabled", "disabled"]).openapi({
      description: `\`disabled\` once the endpoint answered 410 Gone or every attempt failed for ${DISABLE_AFTER_FAILING_DAYS} days: its events are then recorded as failed deliveries, unsent, until POST /v1/webhooks/{id}/enable`,
    }),
    failingSince: IsoDateTime.nullable().openapi({
      description: `The first failed attempt of the current failure run (a day without a failed attempt ends a run, and so does an answered one); null while the endpoint answers`,
    }),
    disabledAt: IsoDateTime.nullable().openapi({ description: "When the endpoint was disabled; null while enabled" }),
    disabledReason: z.string().nullable().openapi({ description: "Why it was disabled, e.g. `it answered 410 Gone`; null while enabled", example: null }),
    secretVersion: z.number().int().openapi({ description: "Which signing secret is current: 1 at registration, +1 per rotation", example: 1 }),
    previousSecretExpiresAt: IsoDateTime.nullable().openapi({ description: "Until when deliveries also carry a signature with the previous secret; null when they do not" }),
    createdAt: IsoDateTime,
  })
  .openapi("WebhookEndpoint");

export const CreatedWebhookEndpointSchema = WebhookEndpointSchema.extend({
  secret: z.string().openapi({ description: "Signing secret (`whsec_…`), shown only in this response", example: "whsec_…" }),
}).openapi("CreatedWebhookEndpoint");

export const WebhookDeliverySchema = z
  .object({
    id: Uuid,
    eventId: Uuid,
    eventType: EventName,
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    lastStatusCode: z.number().int().nullable(),
    lastError: z.string().nullable(),
    nextAttemptAt: IsoDateTime.nullable(),
    createdAt: IsoDateTime,
    deliveredAt: IsoDateTime.nullable(),
  })
  .openapi("WebhookDelivery");

const exampleEndpoint: z.input<typeof WebhookEndpointSchema> = {
  id: "6c5d4e3f-2a1b-4c9d-8e7f-0a1b2c3d4e5f",
  url: "https://hooks.acme.example.net/mintyard",
  events: ["transaction.confirmed", "transaction.failed"],
  status: "enabled",
  failingSince: null,
  disabledAt: null,
  disabledReason: null,
  secretVersion: 1,
  previousSecretExpiresAt: null,
  createdAt: EXAMPLE.createdAt,
};

const IdParams = z.object({ id: uuidPathParam("id") });

export const createWebhook = createRoute({
  method: "post",
  path: "/v1/webhooks",
  operationId: "createWebhook",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey, idempotencyKeeping(registrationResponse)] as const,
  summary: "Register a webhook endpoint",
  description: `Deliveries are JSON \`{id, type, createdAt, data}\` POSTed with \`Mintyard-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>\` (after a rotation, for a while, a second \`v1\` made with the previous secret: accept a request when any \`v1\` matches), \`Mintyard-Event\` and \`Mintyard-Delivery\` headers, at least once, retried with backoff for 24 h (a 429's or 503's \`Retry-After\` is honoured when longer than the backoff step, up to 6 h). An endpoint that answers 410 Gone, or whose every attempt fails for ${DISABLE_AFTER_FAILING_DAYS} days, is disabled until POST /v1/webhooks/{id}/enable. Events: ${WEBHOOK_EVENTS.join(", ")}. The URL must be https to a public host: \`localhost\`, \`*.localhost\` and IP addresses in loopback, private, link-local, unique-local, shared (CGNAT), benchmarking, multicast, reserved or unspecified ranges (IPv6 forms that embed such an IPv4 address included) are a 400 on \`body.url\`; an endpoint registered before a range was refused gets nothing, and its deliveries fail. Host names are not resolved, so a public name that points at a private address is not caught. With an \`Idempotency-Key\`, a retry replays the first response, secret included: the secret is derived from the endpoint id again, never stored (decision 31). Without one, a retry after a lost response gets 409 for the same URL: delete the endpoint and register it again for a new secret.`,
  request: {
    headers: IdempotencyHeaders,
    ...jsonBody(
      z
        .strictObject({ url: z.string().max(2048), events: z.array(z.string()).min(1).max(WEBHOOK_EVENTS.length) })
        .openapi({ example: { url: "https://example.com/hooks/mintyard", events: ["transaction.confirmed", "transaction.failed"] } }),
      "The https URL to deliver to and the events to send there",
      { url: exampleEndpoint.url, events: exampleEndpoint.events },
    ),
  },
  responses: {
    201: jsonContent(CreatedWebhookEndpointSchema, "Endpoint registered", { ...exampleEndpoint, secret: "whsec_q3Jt0f9yVhQ2mB8cX4nZ7pL1sK6dR5wA0eU3iO9gT2" }),
    ...operationErrors({ auth: "secretKey", body: true, idempotent: true }, "conflict"),
  },
});

export const listWebhooks = createRoute({
  method: "get",
  path: "/v1/webhooks",
  operationId: "listWebhooks",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey] as const,
  summary: "List webhook endpoints",
  description: "The project's endpoints that are not deleted, disabled ones included with the reason (never their secrets).",
  responses: {
    200: jsonContent(z.object({ data: z.array(WebhookEndpointSchema) }), "Endpoints", { data: [exampleEndpoint] }),
    ...operationErrors({ auth: "secretKey" }),
  },
});

export const deleteWebhook = createRoute({
  method: "delete",
  path: "/v1/webhooks/{id}",
  operationId: "deleteWebhook",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey] as const,
  summary: "Delete a webhook endpoint",
  description: "Stops deliveries to it at once; pending ones are marked failed.",
  request: { params: IdParams },
  responses: { 204: { description: "Deleted (no body)" }, ...operationErrors({ auth: "secretKey", input: true }, "not_found") },
});

export const listDeliveries = createRoute({
  method: "get",
  path: "/v1/webhooks/{id}/deliveries",
  operationId: "listWebhookDeliveries",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey] as const,
  summary: "Delivery log of an endpoint",
  description: "Newest first: each event's status (pending, delivered, failed), attempts and last answer. Finished deliveries are kept 30 days after their last attempt.",
  request: { params: IdParams, query: z.strictObject({ page: PageQuery, limit: LimitQuery }) },
  responses: {
    200: jsonContent(z.object({ data: z.array(WebhookDeliverySchema) }), "Deliveries", {
      data: [
        {
          id: "1f2e3d4c-5b6a-4798-8a7b-6c5d4e3f2a1b",
          eventId: "3a4b5c6d-7e8f-4a0b-9c1d-2e3f4a5b6c7d",
          eventType: "transaction.confirmed",
          status: "delivered",
          attempts: 1,
          lastStatusCode: 200,
          lastError: null,
          nextAttemptAt: null,
          createdAt: EXAMPLE.updatedAt,
          deliveredAt: EXAMPLE.updatedAt,
        },
      ],
    }),
    ...operationErrors({ auth: "secretKey", input: true }, "not_found"),
  },
});

export const resendDelivery = createRoute({
  method: "post",
  path: "/v1/webhooks/{id}/deliveries/{deliveryId}/resend",
  operationId: "resendWebhookDelivery",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey, idempotency] as const,
  summary: "Send a finished delivery again",
  description:
    "Queues a `failed` or `delivered` delivery of this endpoint for a new try now: the same payload, event id and `Mintyard-Delivery` id (receivers de-duplicate on the event id), a fresh signature, and a new 24 h retry window with the backoff starting over (`attempts` counts from 0 again, `deliveredAt` is cleared until it is delivered again). A delivery still `pending` is 409 `conflict` (it is queued already), as is one of a disabled endpoint (enable it first) or of an endpoint whose URL the rules now refuse (it would fail again unsent); one of a deleted endpoint, or purged 30 days after its last attempt, is 404. With an `Idempotency-Key`, a retry replays the first 202.",
  request: { headers: IdempotencyHeaders, params: IdParams.extend({ deliveryId: uuidPathParam("deliveryId") }) },
  responses: {
    202: jsonContent(WebhookDeliverySchema, "Queued; the endpoint's dispatcher sends it now", {
      id: "1f2e3d4c-5b6a-4798-8a7b-6c5d4e3f2a1b",
      eventId: "3a4b5c6d-7e8f-4a0b-9c1d-2e3f4a5b6c7d",
      eventType: "transaction.confirmed",
      status: "pending",
      attempts: 0,
      lastStatusCode: 500,
      lastError: "HTTP 500",
      nextAttemptAt: EXAMPLE.updatedAt,
      createdAt: EXAMPLE.createdAt,
      deliveredAt: null,
    }),
    ...operationErrors({ auth: "secretKey", input: true, idempotent: true }, "not_found", "conflict"),
  },
});

const RecoverBody = z
  .strictObject({
    since: IsoDateTimeInput.openapi({ description: "Failed deliveries of events at or after this time are queued again" }),
    until: IsoDateTimeInput.optional().openapi({ description: "…and before this time (default: now)" }),
  })
  .superRefine((body, ctx) => {
    if (body.until !== undefined && Date.parse(body.until) <= Date.parse(body.since)) {
      ctx.addIssue({ code: "custom", path: ["until"], message: "must be after since" });
    } else if (body.until === undefined && Date.parse(body.since) >= Date.now()) {
      ctx.addIssue({ code: "custom", path: ["since"], message: "must be in the past when until is left out (it defaults to now)" });
    }
  });

export const recoverDeliveries = createRoute({
  method: "post",
  path: "/v1/webhooks/{id}/recover",
  operationId: "recoverWebhookDeliveries",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey, idempotency] as const,
  summary: "Send every failed delivery of a time range again",
  description: `Queues the endpoint's \`failed\` deliveries of events created in [\`since\`, \`until\`) for a new try now (the oldest of the range first when there are more than one call takes; they then go out in the order they were first queued), each as a single resend does it (same payload and ids, a fresh signature, a new 24 h retry window, backoff from the start); \`delivered\` and \`pending\` ones are left alone. At most ${RECOVER_MAX_PER_CALL} per call: \`more\` is true while failed deliveries of the range remain, and calling again with the same range queues the next ones. Failed deliveries are kept 30 days after their last attempt. A deleted or foreign endpoint is 404; a disabled one (enable it first) or one whose URL the rules now refuse (a private address) is 409 \`conflict\`, since its deliveries would fail again unsent. With an \`Idempotency-Key\`, a retry replays the first 202.`,
  request: { headers: IdempotencyHeaders, params: IdParams, ...jsonBody(RecoverBody, "The range of event times", { since: EXAMPLE.createdAt }) },
  responses: {
    202: jsonContent(
      z
        .object({
          requeued: z.number().int().openapi({ description: "Deliveries queued again by this call" }),
          more: z.boolean().openapi({ description: "Failed deliveries of the range remain: call again" }),
        })
        .openapi("RecoveredDeliveries"),
      "Queued; the endpoint's dispatcher sends them from now on",
      { requeued: 12, more: false },
    ),
    ...operationErrors({ auth: "secretKey", input: true, body: true, idempotent: true }, "not_found"),
  },
});

export const rotateWebhookSecret = createRoute({
  method: "post",
  path: "/v1/webhooks/{id}/rotate-secret",
  operationId: "rotateWebhookSecret",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey, idempotencyKeeping(rotationResponse)] as const,
  summary: "Rotate an endpoint's signing secret",
  description: `Derives a new signing secret (\`secretVersion\` + 1) and shows it once. For \`keepPreviousForSeconds\` (default ${PREVIOUS_SECRET_DEFAULT_SECONDS}, at most ${PREVIOUS_SECRET_MAX_SECONDS}; 0 stops it at once) deliveries carry two signatures, \`t=…,v1=<new>,v1=<previous>\`, so a receiver can switch to the new secret without rejecting events; only the secret just replaced is honoured, so a second rotation ends the first one's overlap. The body may be empty. A rotation that another one overtook between its read and its write gets 409 \`conflict\` (nothing changed); a deleted or foreign endpoint is 404. With an \`Idempotency-Key\`, a retry replays the first response, the same secret included (derived again, never stored; after a later rotation that secret no longer signs).`,
  request: {
    headers: IdempotencyHeaders,
    params: IdParams,
    body: {
      content: {
        "application/json": {
          schema: z.strictObject({ keepPreviousForSeconds: z.number().int().min(0).max(PREVIOUS_SECRET_MAX_SECONDS).optional() }),
          example: { keepPreviousForSeconds: PREVIOUS_SECRET_DEFAULT_SECONDS },
        },
      },
      required: false,
      description: "How long the previous secret keeps signing deliveries",
    },
  },
  responses: {
    200: jsonContent(CreatedWebhookEndpointSchema, "The new secret, shown only in this response", {
      ...exampleEndpoint,
      secretVersion: 2,
      previousSecretExpiresAt: EXAMPLE.updatedAt,
      secret: "whsec_Z8pR2vN5xK1cT7yB4mQ9wE3hJ6uA0sD2fG5lO8iV1",
    }),
    ...operationErrors({ auth: "secretKey", input: true, body: true, idempotent: true }, "not_found", "conflict"),
  },
});

export const enableWebhook = createRoute({
  method: "post",
  path: "/v1/webhooks/{id}/enable",
  operationId: "enableWebhook",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey] as const,
  summary: "Enable a disabled webhook endpoint",
  description: `An endpoint is disabled when it answers 410 Gone (the receiver says the subscription is gone) or when a failure run has lasted ${DISABLE_AFTER_FAILING_DAYS} days (every attempt failed, with no day between failed attempts); its pending deliveries then fail, and its events meanwhile are recorded as failed deliveries without being sent. Enabling it sends new events again and ends the failure run. What failed meanwhile stays failed: POST /v1/webhooks/{id}/recover with \`since\` = the answer's \`recoverSince\` sends it (failed deliveries are kept 30 days after their last attempt). Resends and recovers on a disabled endpoint are 409 \`conflict\`. Enabling an enabled endpoint changes nothing (\`recoverSince\` is null), so a retry needs no Idempotency-Key. A deleted or foreign endpoint is 404. The body is empty.`,
  request: { params: IdParams },
  responses: {
    200: jsonContent(
      WebhookEndpointSchema.extend({
        recoverSince: IsoDateTime.nullable().openapi({
          description: "The `since` for POST /v1/webhooks/{id}/recover that covers every delivery failed by the run and the disabling: a delivery window (24 h) before the run began; null when the endpoint was not disabled",
        }),
      }).openapi("EnabledWebhookEndpoint"),
      "The endpoint, enabled",
      { ...exampleEndpoint, recoverSince: EXAMPLE.createdAt },
    ),
    ...operationErrors({ auth: "secretKey", input: true }, "not_found"),
  },
});
