import { pageBody } from "../../lib/page";
import type { AppRouteHandler } from "../app-types";
import { serviceContext } from "../../services/context";
import { getChain } from "../../lib/chains";
import { getOrder } from "../../services/orders/get-order";
import { listOrders } from "../../services/orders/list-orders";
import { prepareListings } from "../../services/orders/prepare-listings";
import { submitOrder } from "../../services/orders/submit-order";
import type { getOrder as getOrderRoute, listOrders as listRoute, prepareListings as prepareRoute, submitOrder as submitRoute } from "./orders.routes";

export const prepareListingsHandler: AppRouteHandler<typeof prepareRoute> = async (c) => {
  return c.json(await prepareListings(serviceContext(c.env), c.get("auth").projectId, c.req.valid("json")), 200);
};

export const submitOrderHandler: AppRouteHandler<typeof submitRoute> = async (c) => {
  return c.json(await submitOrder(serviceContext(c.env), c.get("auth").projectId, c.req.valid("json")), 201);
};

export const getOrderHandler: AppRouteHandler<typeof getOrderRoute> = async (c) => {
  return c.json(await getOrder(serviceContext(c.env), c.req.valid("param").orderHash), 200);
};

export const listOrdersHandler: AppRouteHandler<typeof listRoute> = async (c) => {
  const query = c.req.valid("query");
  getChain(c.env, query.chainId);
  return c.json(pageBody(await listOrders(serviceContext(c.env), query), query), 200);
};
