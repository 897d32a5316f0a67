import { createRouter } from "../create-router";
import { cancelTransactionHandler, getTransactionHandler, listTransactionsHandler } from "./transactions.handlers";
import { cancelTransaction, getTransaction, listTransactions } from "./transactions.routes";

export const transactionsRouter = createRouter()
  .openapi(listTransactions, listTransactionsHandler)
  .openapi(getTransaction, getTransactionHandler)
  .openapi(cancelTransaction, cancelTransactionHandler);
