import { createRoute, z } from "@hono/zod-openapi";
import { anyKey } from "../../lib/auth";
import { errorResponses, jsonContent, LimitQuery, PageQuery, PaginationSchema, READ_SECURITY } from "../../schemas/common";
import { TransactionSchema, TransactionStatusSchema } from "../../schemas/resources";

const tags = ["Transactions"];

export const getTransaction = createRoute({
  method: "get",
  path: "/v1/transactions/{id}",
  tags,
  security: READ_SECURITY,
  middleware: [anyKey] as const,
  summary: "Get a transaction",
  description: "One of your project's transactions with its current status. Another project's transaction is 404.",
  request: { params: z.object({ id: z.uuid("must be a UUID").openapi({ param: { name: "id", in: "path" } }) }) },
  responses: {
    200: jsonContent(TransactionSchema, "The transaction"),
    ...errorResponses("validation_error", "unauthorized", "not_found"),
  },
});

export const listTransactions = createRoute({
  method: "get",
  path: "/v1/transactions",
  tags,
  security: READ_SECURITY,
  middleware: [anyKey] as const,
  summary: "List transactions",
  description: "Your project's transactions, newest first.",
  request: {
    query: z.strictObject({ status: TransactionStatusSchema.optional(), page: PageQuery, limit: LimitQuery }),
  },
  responses: {
    200: jsonContent(z.object({ data: z.array(TransactionSchema), pagination: PaginationSchema }).openapi("TransactionPage"), "A page of transactions"),
    ...errorResponses("validation_error", "unauthorized"),
  },
});
