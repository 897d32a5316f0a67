import { pageBody } from "../../lib/page";
import type { AppRouteHandler } from "../app-types";
import { serviceContext } from "../../services/context";
import { cancelTransaction } from "../../services/transactions/cancel-transaction";
import { getTransaction, listTransactions } from "../../services/transactions/read-transactions";
import type { cancelTransaction as cancelRoute, getTransaction as getRoute, listTransactions as listRoute } from "./transactions.routes";

export const getTransactionHandler: AppRouteHandler<typeof getRoute> = async (c) => {
  return c.json(await getTransaction(serviceContext(c.env), c.get("auth").projectId, c.req.valid("param").id), 200);
};

export const listTransactionsHandler: AppRouteHandler<typeof listRoute> = async (c) => {
  const query = c.req.valid("query");
  return c.json(pageBody(await listTransactions(serviceContext(c.env), c.get("auth").projectId, query), query), 200);
};

export const cancelTransactionHandler: AppRouteHandler<typeof cancelRoute> = async (c) => {
  return c.json(await cancelTransaction(serviceContext(c.env), c.get("auth").projectId, c.req.valid("param").id), 202);
};
