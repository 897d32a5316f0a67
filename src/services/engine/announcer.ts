// How the engine's transactions are announced: the webhooks feature registers the announcer at
// module load (src/services/transaction-kinds.ts), so the engine imports no feature. Its
// statements ride in the engine's own D1 batches: an event exists exactly when the change it
// reports was written.
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "../../db/client";
import type { SqlCondition } from "./kinds";
import type { TransactionView } from "./transaction-view";

export interface TransactionAnnouncer {
  /** Batched with the pending row's insert: a query returning a row when the project listens for `transaction.pending`. */
  pendingListeners(db: Db, projectId: string): BatchItem<"sqlite">;
  /** Queues `transaction.<status>` for the settled transaction, only while `onlyIf` holds. */
  settled(db: D1Database, transaction: TransactionView & { status: "confirmed" | "reverted" | "failed" }, onlyIf: SqlCondition): D1PreparedStatement;
  /** After a settlement's batch: wakes the delivery of whatever its statements queued (its event, an order.filled). */
  afterSettlement(env: Env, results: D1Result[]): Promise<void>;
}

let registered: TransactionAnnouncer | undefined;

export function announceTransactionsWith(announcer: TransactionAnnouncer): void {
  registered = announcer;
}

export function transactionAnnouncer(): TransactionAnnouncer {
  if (!registered) throw new Error("no transaction announcer is registered (src/services/transaction-kinds.ts)");
  return registered;
}
