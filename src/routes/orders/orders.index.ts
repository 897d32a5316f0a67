import { createRouter } from "../../lib/create-router";
import { getOrderHandler, prepareListingsHandler, submitOrderHandler } from "./orders.handlers";
import { getOrder, prepareListings, submitOrder } from "./orders.routes";

export const ordersRouter = createRouter()
  .openapi(prepareListings, prepareListingsHandler)
  .openapi(submitOrder, submitOrderHandler)
  .openapi(getOrder, getOrderHandler);
