import { createRouter } from "../../lib/create-router";
import { getTransactionHandler, listTransactionsHandler } from "./transactions.handlers";
import { getTransaction, listTransactions } from "./transactions.routes";

export const transactionsRouter = createRouter()
  .openapi(listTransactions, listTransactionsHandler)
  .openapi(getTransaction, getTransactionHandler);
