// The one write that ends a transaction: final status, gas figures, what its kind writes for the
// outcome (engine/kinds.ts) and the announcement, in a single D1 batch that does nothing unless
// the row is still `pending` at this attempt's nonce.
import type { TransactionReceipt } from "../../chain/transactions";
import { eq } from "drizzle-orm";
import { transactions } from "../../db/schema";
import type { ServiceContext } from "../context";
import { transactionAnnouncer } from "./announcer";
import { transactionKind, type Settlement, type SettledTransaction, type SqlCondition } from "./kinds";
import { transactionView } from "./transaction-view";
import type { WatchedTransaction } from "./types";

export type { Settlement } from "./kinds";

// Pending *with this attempt's nonce*: after a nonce-too-low re-sign the row belongs to the new
// nonce, and the old attempt's watcher must not settle it.
const STILL_PENDING_SQL = "exists (select 1 from transactions where id = ? and status = 'pending' and nonce = ?)";

function gasFigures(receipt: TransactionReceipt) {
  const gasUsed = receipt.gasUsed;
  const gasPrice = receipt.effectiveGasPrice;
  // OP-stack chains (Soneium) also charge an L1 data fee, reported on the receipt.
  const l1Fee = (receipt as { l1Fee?: bigint | null }).l1Fee ?? 0n;
  return { gasUsed: gasUsed.toString(), gasPrice: gasPrice.toString(), totalGasFee: (gasUsed * gasPrice + l1Fee).toString() };
}

export async function finalizeTransaction(ctx: ServiceContext, record: WatchedTransaction, settlement: Settlement): Promise<void> {
  const db = ctx.env.DB;
  const stillPending: SqlCondition = { sql: STILL_PENDING_SQL, params: [record.id, record.nonce] };
  const now = Date.now();

  // The row is read first: its payload drives the kind's writes, the row itself the announcement.
  const row = await ctx.db.select().from(transactions).where(eq(transactions.id, record.id)).get();
  const statements = await outcomeWrites(ctx, record, settlement, { payloadJson: row?.payload ?? null, stillPending, settledAt: now });

  const mined = settlement.status === "failed" ? undefined : settlement.receipt;
  const gas = mined ? gasFigures(mined) : { gasUsed: null, gasPrice: null, totalGasFee: null };
  const errorMessage =
    settlement.status === "failed"
      ? settlement.reason
      : settlement.status === "reverted"
        ? (settlement.reason ?? "the transaction reverted on chain")
        : null;
  // A failed row shows the intended transaction's latest hash, never its nonce's filler.
  const transactionHash = mined?.transactionHash ?? record.hashes.findLast((sent) => sent.purpose !== "fill")?.hash ?? null;

  // The announcement is queued in the same batch, so it exists exactly when the status changed.
  const announcer = transactionAnnouncer();
  if (row) {
    const settled = transactionView({
      ...row,
      status: settlement.status,
      transactionHash,
      ...gas,
      blockNumber: mined ? Number(mined.blockNumber) : null,
      errorMessage,
      updatedAt: new Date(now),
    });
    statements.push(announcer.settled(db, settled as typeof settled & { status: Settlement["status"] }, stillPending));
  }
  statements.push(
    db
      .prepare(
        `update transactions set status = ?, transaction_hash = ?, gas_used = ?, gas_price = ?, total_gas_fee = ?,
                block_number = ?, error_message = ?, updated_at = ?
         where id = ? and status = 'pending' and nonce = ?`,
      )
      .bind(
        settlement.status,
        transactionHash,
        gas.gasUsed,
        gas.gasPrice,
        gas.totalGasFee,
        mined ? Number(mined.blockNumber) : null,
        errorMessage,
        now,
        record.id,
        record.nonce,
      ),
  );
  await announcer.afterSettlement(ctx.env, await db.batch(statements));
}

/** What the transaction's kind writes for this outcome; its payload is parsed only when a writer needs it. */
async function outcomeWrites(
  ctx: ServiceContext,
  record: WatchedTransaction,
  settlement: Settlement,
  row: { payloadJson: string | null; stillPending: SqlCondition; settledAt: number },
): Promise<D1PreparedStatement[]> {
  const kind = transactionKind(record.kind);
  const write = kind.outcome[settlement.status] as ((ctx: ServiceContext, settled: SettledTransaction<unknown>) => Promise<D1PreparedStatement[]>) | undefined;
  if (!write) return [];
  const payload = kind.payload && row.payloadJson ? kind.payload.parse(JSON.parse(row.payloadJson)) : null;
  return write(ctx, {
    id: record.id,
    projectId: record.projectId,
    chainId: record.chainId,
    subjectId: record.subjectId,
    nonce: record.nonce,
    payload,
    settlement,
    stillPending: row.stillPending,
    settledAt: row.settledAt,
  });
}
