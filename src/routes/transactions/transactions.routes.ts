import { createRoute, z } from "@hono/zod-openapi";
import { anyKey } from "../../lib/auth";
import { jsonContent, LimitQuery, operationErrors, PageQuery, PaginationSchema, READ_SECURITY, uuidPathParam } from "../../schemas/common";
import { exampleConfirmedTransaction } from "../../schemas/examples";
import { TransactionSchema, TransactionStatusSchema } from "../../schemas/resources";

const tags = ["Transactions"];

export const getTransaction = createRoute({
  method: "get",
  path: "/v1/transactions/{id}",
  operationId: "getTransaction",
  tags,
  security: READ_SECURITY,
  middleware: [anyKey] as const,
  summary: "Get a transaction",
  description: "One of your project's transactions with its current status. Another project's transaction is 404.",
  request: { params: z.object({ id: uuidPathParam("id") }) },
  responses: {
    200: jsonContent(TransactionSchema, "The transaction", exampleConfirmedTransaction),
    ...operationErrors({ auth: "anyKey", input: true }, "not_found"),
  },
});

export const listTransactions = createRoute({
  method: "get",
  path: "/v1/transactions",
  operationId: "listTransactions",
  tags,
  security: READ_SECURITY,
  middleware: [anyKey] as const,
  summary: "List transactions",
  description: "Your project's transactions, newest first.",
  request: {
    query: z.strictObject({ status: TransactionStatusSchema.optional(), page: PageQuery, limit: LimitQuery }),
  },
  responses: {
    200: jsonContent(z.object({ data: z.array(TransactionSchema), pagination: PaginationSchema }).openapi("TransactionPage"), "A page of transactions", {
      data: [exampleConfirmedTransaction],
      pagination: { total: 1, page: 1, limit: 20 },
    }),
    ...operationErrors({ auth: "anyKey", input: true }),
  },
});
