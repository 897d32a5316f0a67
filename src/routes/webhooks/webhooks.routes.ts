import { createRoute, z } from "@hono/zod-openapi";
import { secretKey } from "../../lib/auth";
import { errorResponses, IsoDateTime, jsonBody, jsonContent, LimitQuery, PageQuery, SECRET_SECURITY, Uuid } from "../../schemas/common";
import { WEBHOOK_EVENTS } from "../../services/webhooks/events";

const tags = ["Webhooks"];
const EventName = z.string().openapi({ enum: [...WEBHOOK_EVENTS], example: "transaction.confirmed" });

export const WebhookEndpointSchema = z
  .object({ id: Uuid, url: z.string(), events: z.array(EventName), createdAt: IsoDateTime })
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

const IdParams = z.object({ id: z.uuid("must be a UUID").openapi({ param: { name: "id", in: "path" } }) });

export const createWebhook = createRoute({
  method: "post",
  path: "/v1/webhooks",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey] as const,
  summary: "Register a webhook endpoint",
  description: `Deliveries are JSON \`{id, type, createdAt, data}\` POSTed with \`Mintyard-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>\`, \`Mintyard-Event\` and \`Mintyard-Delivery\` headers, at least once, retried with backoff for 24 h. Events: ${WEBHOOK_EVENTS.join(", ")}. The URL must be https.`,
  request: jsonBody(
    z
      .strictObject({ url: z.string().max(2048), events: z.array(z.string()).min(1).max(WEBHOOK_EVENTS.length) })
      .openapi({ example: { url: "https://example.com/hooks/mintyard", events: ["transaction.confirmed", "transaction.failed"] } }),
  ),
  responses: {
    201: jsonContent(CreatedWebhookEndpointSchema, "Endpoint registered"),
    ...errorResponses("validation_error", "unauthorized", "forbidden", "conflict", "rate_limited"),
  },
});

export const listWebhooks = createRoute({
  method: "get",
  path: "/v1/webhooks",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey] as const,
  summary: "List webhook endpoints",
  description: "The project's live endpoints (never their secrets).",
  responses: {
    200: jsonContent(z.object({ data: z.array(WebhookEndpointSchema) }), "Endpoints"),
    ...errorResponses("unauthorized", "forbidden", "rate_limited"),
  },
});

export const deleteWebhook = createRoute({
  method: "delete",
  path: "/v1/webhooks/{id}",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey] as const,
  summary: "Delete a webhook endpoint",
  description: "Stops deliveries to it at once; pending ones are marked failed.",
  request: { params: IdParams },
  responses: { 204: { description: "Deleted" }, ...errorResponses("validation_error", "unauthorized", "forbidden", "not_found", "rate_limited") },
});

export const listDeliveries = createRoute({
  method: "get",
  path: "/v1/webhooks/{id}/deliveries",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey] as const,
  summary: "Delivery log of an endpoint",
  description: "Newest first: each event's status (pending, delivered, failed), attempts and last answer.",
  request: { params: IdParams, query: z.strictObject({ page: PageQuery, limit: LimitQuery }) },
  responses: {
    200: jsonContent(z.object({ data: z.array(WebhookDeliverySchema) }), "Deliveries"),
    ...errorResponses("validation_error", "unauthorized", "forbidden", "not_found", "rate_limited"),
  },
});
