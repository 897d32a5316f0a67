import type { AppRouteHandler } from "../app-types";
import { serviceContext } from "../../services/context";
import { deleteEndpoint, enableEndpoint, listDeliveries, listEndpoints, registerEndpoint, resendDelivery, rotateEndpointSecret } from "../../services/webhooks/endpoints";
import { recoverFailedDeliveries } from "../../services/webhooks/recover";
import type {
  createWebhook,
  recoverDeliveries,
  deleteWebhook,
  enableWebhook,
  listDeliveries as listDeliveriesRoute,
  listWebhooks,
  resendDelivery as resendDeliveryRoute,
  rotateWebhookSecret,
} from "./webhooks.routes";

export const createWebhookHandler: AppRouteHandler<typeof createWebhook> = async (c) => {
  return c.json(await registerEndpoint(serviceContext(c.env), c.get("auth").projectId, c.req.valid("json")), 201);
};

export const listWebhooksHandler: AppRouteHandler<typeof listWebhooks> = async (c) => {
  return c.json({ data: await listEndpoints(serviceContext(c.env), c.get("auth").projectId) }, 200);
};

export const deleteWebhookHandler: AppRouteHandler<typeof deleteWebhook> = async (c) => {
  await deleteEndpoint(serviceContext(c.env), c.get("auth").projectId, c.req.valid("param").id);
  return c.body(null, 204);
};

export const listDeliveriesHandler: AppRouteHandler<typeof listDeliveriesRoute> = async (c) => {
  const data = await listDeliveries(serviceContext(c.env), c.get("auth").projectId, c.req.valid("param").id, c.req.valid("query"));
  return c.json({ data }, 200);
};

export const resendDeliveryHandler: AppRouteHandler<typeof resendDeliveryRoute> = async (c) => {
  const { id, deliveryId } = c.req.valid("param");
  return c.json(await resendDelivery(serviceContext(c.env), c.get("auth").projectId, id, deliveryId), 202);
};

export const recoverDeliveriesHandler: AppRouteHandler<typeof recoverDeliveries> = async (c) => {
  const { since, until } = c.req.valid("json");
  const range = { since: new Date(since), until: until === undefined ? new Date() : new Date(until) };
  return c.json(await recoverFailedDeliveries(serviceContext(c.env), c.get("auth").projectId, c.req.valid("param").id, range), 202);
};

export const rotateWebhookSecretHandler: AppRouteHandler<typeof rotateWebhookSecret> = async (c) => {
  // The body is optional: without one the validator yields {} and the defaults apply.
  return c.json(await rotateEndpointSecret(serviceContext(c.env), c.get("auth").projectId, c.req.valid("param").id, c.req.valid("json")), 200);
};

export const enableWebhookHandler: AppRouteHandler<typeof enableWebhook> = async (c) => {
  return c.json(await enableEndpoint(serviceContext(c.env), c.get("auth").projectId, c.req.valid("param").id), 200);
};
