// The D1 mirror of engine state: one `transactions` row per intent, written before broadcast.
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { transactions } from "../../db/schema";
import { transactionAnnouncer } from "./announcer";
import type { TxIntent } from "./types";

/**
 * Inserts the row and, in the same D1 batch, reads whether the project has a live endpoint
 * subscribed to `transaction.pending`: an answer as fresh as the row, so an endpoint registered
 * a moment ago from any isolate hears of the transaction, and a project without one is spared
 * the queueing write (decision 99). `row` is undefined when a re-sign's row was settled already.
 */
export async function insertPendingRow(
  db: Db,
  intent: TxIntent,
  sent: { nonce: number; hash: string; fromAddress: string; createdAt: Date },
) {
  const [rows, listeners] = await db.batch([pendingRowInsert(db, intent, sent), transactionAnnouncer().pendingListeners(db, intent.projectId)]);
  return { row: rows[0], announcePending: (listeners as unknown[]).length > 0 };
}

function pendingRowInsert(db: Db, intent: TxIntent, sent: { nonce: number; hash: string; fromAddress: string; createdAt: Date }) {
  return db
    .insert(transactions)
    .values({
      id: intent.transactionId,
      jobId: intent.jobId,
      projectId: intent.projectId,
      chainId: intent.chainId,
      status: "pending",
      kind: intent.kind,
      subjectId: intent.subjectId,
      fromAddress: sent.fromAddress.toLowerCase(),
      toAddress: intent.to.toLowerCase(),
      value: intent.value,
      data: intent.data,
      nonce: sent.nonce,
      transactionHash: sent.hash,
      metadata: intent.metadata,
      payload: intent.payload,
      createdAt: sent.createdAt,
      updatedAt: sent.createdAt,
    })
    // A nonce-too-low re-sign moves the row to the new nonce, unless the first attempt's watcher
    // settled it meanwhile: then no row comes back and the new attempt must not be sent.
    .onConflictDoUpdate({
      target: transactions.id,
      set: { nonce: sent.nonce, transactionHash: sent.hash, updatedAt: new Date() },
      setWhere: eq(transactions.status, "pending"),
    })
    .returning();
}

/**
 * A fee bump: same record, same nonce, new hash; only while still pending at that nonce, so a
 * bump of an attempt a nonce re-sign replaced cannot put its hash on the new attempt's row.
 */
export async function updatePendingHash(db: Db, id: string, hash: string, nonce: number) {
  await db
    .update(transactions)
    .set({ transactionHash: hash, updatedAt: new Date() })
    .where(and(eq(transactions.id, id), eq(transactions.status, "pending"), eq(transactions.nonce, nonce)));
}

/**
 * The request failed before anything reached the chain: no transaction exists to show. Deletes
 * the row while it is pending; whether there was such a row.
 */
export async function deleteUnsentRow(db: Db, id: string): Promise<boolean> {
  const deleted = await db.delete(transactions).where(and(eq(transactions.id, id), eq(transactions.status, "pending"))).returning({ id: transactions.id });
  return deleted.length > 0;
}

/**
 * Whether the row announces this attempt: a withdrawn transaction has no row, and a nonce
 * re-sign whose row write has not landed (or failed) leaves the row at the other attempt's nonce.
 */
export async function rowAnnounces(db: Db, id: string, nonce: number): Promise<boolean> {
  const row = await db.select({ id: transactions.id }).from(transactions).where(and(eq(transactions.id, id), eq(transactions.nonce, nonce))).get();
  return row !== undefined;
}
