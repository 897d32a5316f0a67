import { and, count, desc, eq } from "drizzle-orm";
import { transactions } from "../../db/schema";
import { notFound } from "../../lib/errors";
import type { ServiceContext } from "../context";
import { transactionView, type TransactionView } from "../engine/transaction-view";

export type TransactionStatus = (typeof transactions.$inferSelect)["status"];

export async function getTransaction({ db }: ServiceContext, projectId: string, id: string): Promise<TransactionView> {
  const row = await db
    .select()
    .from(transactions)
    .where(and(eq(transactions.id, id), eq(transactions.projectId, projectId)))
    .get();
  if (!row) throw notFound("transaction");
  return transactionView(row);
}

export async function listTransactions(
  { db }: ServiceContext,
  projectId: string,
  query: { status?: TransactionStatus; page: number; limit: number },
): Promise<{ data: TransactionView[]; total: number }> {
  const where = and(eq(transactions.projectId, projectId), query.status ? eq(transactions.status, query.status) : undefined);
  const [totalRows, rows] = await db.batch([
    db.select({ total: count() }).from(transactions).where(where),
    db
      .select()
      .from(transactions)
      .where(where)
      .orderBy(desc(transactions.createdAt), desc(transactions.id))
      .limit(query.limit)
      .offset((query.page - 1) * query.limit),
  ]);
  return { data: rows.map(transactionView), total: totalRows[0]?.total ?? 0 };
}
