import { createRouter } from "../create-router";
import { getOrderHandler, listOrdersHandler, prepareListingsHandler, submitOrderHandler } from "./orders.handlers";
import { getOrder, listOrders, prepareListings, submitOrder } from "./orders.routes";

export const ordersRouter = createRouter()
  .openapi(prepareListings, prepareListingsHandler)
  .openapi(submitOrder, submitOrderHandler)
  .openapi(listOrders, listOrdersHandler)
  .openapi(getOrder, getOrderHandler);
