// The D1 mirror of engine state: one `transactions` row per intent, written before broadcast.
import { and, eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { transactions } from "../../db/schema";
import type { TxIntent, TxKind } from "./types";

export function insertPendingRow(
  db: Db,
  intent: TxIntent,
  sent: { nonce: number; hash: string; fromAddress: string; createdAt: Date },
) {
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
    .onConflictDoUpdate({
      target: transactions.id,
      set: { nonce: sent.nonce, transactionHash: sent.hash, updatedAt: new Date() },
    })
    .returning()
    .get();
}

/** A fee bump or nonce re-sign: same record, new hash; only while still pending. */
export async function updatePendingHash(db: Db, id: string, hash: string, nonce: number) {
  await db
    .update(transactions)
    .set({ transactionHash: hash, nonce, updatedAt: new Date() })
    .where(and(eq(transactions.id, id), eq(transactions.status, "pending")));
}

/** A project's transaction still pending for this subject (a buy of an order, an approval of a token), if any. */
export function pendingTransactionFor(db: Db, of: { projectId: string; chainId: number; kind: TxKind; subjectId: string }) {
  return db
    .select({ id: transactions.id })
    .from(transactions)
    .where(
      and(
        eq(transactions.projectId, of.projectId),
        eq(transactions.chainId, of.chainId),
        eq(transactions.status, "pending"),
        eq(transactions.kind, of.kind),
        eq(transactions.subjectId, of.subjectId),
      ),
    )
    .get();
}

/** The request failed before anything reached the chain: no transaction exists to show. */
export async function deleteUnsentRow(db: Db, id: string) {
  await db.delete(transactions).where(and(eq(transactions.id, id), eq(transactions.status, "pending")));
}
