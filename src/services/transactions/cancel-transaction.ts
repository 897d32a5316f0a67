// Cancelling a pending transaction: its watcher takes the nonce with a 0-value self-transfer
// priced to replace it (decision 104). The chain decides which of the two is mined.
import { watcherStub } from "../../durable-objects/stubs";
import { AppError } from "../../lib/errors";
import type { ServiceContext } from "../context";
import { getTransaction } from "./read-transactions";
import type { TransactionView } from "./transaction-view";

const notPending = (transaction: TransactionView) =>
  new AppError("conflict", `transaction ${transaction.id} is already ${transaction.status}; only a pending transaction can be cancelled`, [
    { path: "status", message: transaction.status },
  ]);

/** The transaction, still `pending`, once its watcher has taken the request; 404 for another project's. */
export async function cancelTransaction(ctx: ServiceContext, projectId: string, id: string): Promise<TransactionView> {
  const transaction = await getTransaction(ctx, projectId, id);
  if (transaction.status !== "pending") throw notPending(transaction);
  const outcome = await watcherStub(ctx.env, id).requestCancel();
  if (outcome === "requested") return transaction;
  // Settled since the read above (D1 is written before the watcher's record says so), or not yet
  // tracked: the row and the watcher's record are written side by side before the first broadcast.
  const now = await getTransaction(ctx, projectId, id);
  if (now.status !== "pending") throw notPending(now);
  throw new AppError("conflict", `transaction ${id} is still being sent and cannot be cancelled yet; retry in a moment`);
}
