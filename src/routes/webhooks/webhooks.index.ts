import { createRouter } from "../create-router";
import * as handlers from "./webhooks.handlers";
import * as routes from "./webhooks.routes";

export const webhooksRouter = createRouter()
  .openapi(routes.createWebhook, handlers.createWebhookHandler)
  .openapi(routes.listWebhooks, handlers.listWebhooksHandler)
  .openapi(routes.deleteWebhook, handlers.deleteWebhookHandler)
  .openapi(routes.listDeliveries, handlers.listDeliveriesHandler)
  .openapi(routes.resendDelivery, handlers.resendDeliveryHandler)
  .openapi(routes.recoverDeliveries, handlers.recoverDeliveriesHandler)
  .openapi(routes.rotateWebhookSecret, handlers.rotateWebhookSecretHandler)
  .openapi(routes.enableWebhook, handlers.enableWebhookHandler);
