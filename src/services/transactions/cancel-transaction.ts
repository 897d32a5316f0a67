// Cancelling a pending transaction: its watcher takes the nonce with a 0-value self-transfer
// priced to replace it (decision 104). The chain decides which of the two is mined.
import { watcherStub } from "../durable-object-stubs";
import { AppError } from "../../lib/errors";
import type { ServiceContext } from "../context";
import { getTransaction } from "./read-transactions";
import type { TransactionView } from "../engine/transaction-view";

const notPending = (transaction: TransactionView) =>
  new AppError("conflict", `transaction ${transaction.id} is already ${transaction.status}; only a pending transaction can be cancelled`, [
    { path: "status", message: transaction.status },
  ]);

/** The transaction, still `pending`, once its watcher has taken the request; 404 for another project's. */
export async function cancelTransaction(ctx: ServiceContext, projectId: string, id: string): Promise<TransactionView> {
  const transaction = await getTransaction(ctx, projectId, id);
  if (transaction.status !== "pending") throw notPending(transaction);
  if ((await watcherStub(ctx.env, id).requestCancel()) === "taken") return transaction;
  // The watcher's record is final: so is the row by now (D1 is written first), unless a re-signed
  // attempt (decision 30) is on its way, which takes the request with it.
  const now = await getTransaction(ctx, projectId, id);
  if (now.status !== "pending") throw notPending(now);
  return now;
}
