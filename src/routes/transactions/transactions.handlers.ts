import type { AppRouteHandler } from "../../lib/types";
import { serviceContext } from "../../services/context";
import { cancelTransaction } from "../../services/transactions/cancel-transaction";
import { getTransaction, listTransactions } from "../../services/transactions/read-transactions";
import type { cancelTransaction as cancelRoute, getTransaction as getRoute, listTransactions as listRoute } from "./transactions.routes";

export const getTransactionHandler: AppRouteHandler<typeof getRoute> = async (c) => {
  return c.json(await getTransaction(serviceContext(c.env), c.get("auth").projectId, c.req.valid("param").id), 200);
};

export const listTransactionsHandler: AppRouteHandler<typeof listRoute> = async (c) => {
  const query = c.req.valid("query");
  const { data, total } = await listTransactions(serviceContext(c.env), c.get("auth").projectId, query);
  return c.json({ data, pagination: { total, page: query.page, limit: query.limit } }, 200);
};

export const cancelTransactionHandler: AppRouteHandler<typeof cancelRoute> = async (c) => {
  return c.json(await cancelTransaction(serviceContext(c.env), c.get("auth").projectId, c.req.valid("param").id), 202);
};
