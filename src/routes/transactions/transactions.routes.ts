import { createRoute, z } from "@hono/zod-openapi";
import { anyKey, secretKey } from "../middleware/auth";
import { idempotency } from "../middleware/idempotency";
import { jsonContent, LimitQuery, operationErrors, PageQuery, PaginationSchema, READ_SECURITY, SECRET_SECURITY, uuidPathParam } from "../../schemas/common";
import { exampleConfirmedTransaction, examplePendingTransaction } from "../../schemas/examples";
import { TransactionSchema, TransactionStatusSchema } from "../../schemas/resources";
import { IdempotencyHeaders } from "../project-wallet/project-wallet.routes";

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

export const cancelTransaction = createRoute({
  method: "post",
  path: "/v1/transactions/{id}/cancel",
  operationId: "cancelTransaction",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey, idempotency] as const,
  summary: "Cancel a pending transaction",
  description:
    "Asks the engine to take the transaction's nonce with a 0-value transfer from the project wallet to itself, priced to replace it in the node's pool (fees at least 12.5 % above its latest version). The answer is the transaction, still `pending`: the chain decides. If the filler is mined the transaction ends `failed` with an `errorMessage` saying it was cancelled, and nothing it would have done happens (a claim's token ids go back to the drop's supply, a buy's order is free to buy again); if the transaction itself was mined first it ends as it would have. The filler costs 21,000 gas (plus the L1 data fee on an OP-stack chain), not shown on the transaction. Repeating the request changes nothing. A transaction the engine is still sending (its id can show in the list before the request that sent it is answered) is cancelled once it is sent; should the node refuse it instead, it is taken back as usual and the id is then 404. A transaction that is no longer `pending` is 409 `conflict`; another project's is 404. With an `Idempotency-Key`, a retry replays the first 202.",
  request: { headers: IdempotencyHeaders, params: z.object({ id: uuidPathParam("id") }) },
  responses: {
    202: jsonContent(TransactionSchema, "Cancellation requested; the transaction is still pending until the chain decides", examplePendingTransaction),
    ...operationErrors({ auth: "secretKey", input: true, idempotent: true }, "not_found", "conflict"),
  },
});
