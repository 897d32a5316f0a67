// The one write that ends a transaction: final status, gas figures and the side effects of its
// kind, in a single D1 batch that does nothing unless the row is still `pending`.
import { erc721Transfers, isMint } from "../../chain/transfer-logs";
import type { TransactionReceipt } from "../../chain/transactions";
import { claimLog, erc721TransferStatements, newLogGuard, type AssetFields } from "../chain-events/apply";
import { mintedAssetFields, writeMintedMetadata, type ClaimPayload } from "../drops/minted-metadata";
import type { ServiceContext } from "../context";
import type { WatchedTransaction } from "./types";

export type Settlement =
  | { status: "confirmed" | "reverted"; receipt: TransactionReceipt }
  | { status: "failed"; reason: string; receipt?: TransactionReceipt };

const STILL_PENDING = { sql: "exists (select 1 from transactions where id = ? and status = 'pending')" };

function gasFigures(receipt: TransactionReceipt) {
  const gasUsed = receipt.gasUsed;
  const gasPrice = receipt.effectiveGasPrice;
  // OP-stack chains (Soneium) also charge an L1 data fee, reported on the receipt.
  const l1Fee = (receipt as { l1Fee?: bigint | null }).l1Fee ?? 0n;
  return { gasUsed: gasUsed.toString(), gasPrice: gasPrice.toString(), totalGasFee: (gasUsed * gasPrice + l1Fee).toString() };
}

export async function finalizeTransaction(ctx: ServiceContext, record: WatchedTransaction, settlement: Settlement): Promise<void> {
  const db = ctx.env.DB;
  const stillPending = { ...STILL_PENDING, params: [record.id] };
  const statements: D1PreparedStatement[] = [];
  const now = Date.now();

  if (settlement.status === "confirmed") {
    statements.push(...(await confirmedEffects(ctx, record, settlement.receipt, stillPending)));
  }
  if (record.kind === "deploy" && record.subjectId) {
    statements.push(
      db
        .prepare(`update drops set status = ?, updated_at = ? where id = ? and status = 'pending' and ${STILL_PENDING.sql}`)
        .bind(settlement.status === "confirmed" ? "deployed" : "failed", now, record.subjectId, record.id),
    );
  }

  const mined = settlement.status === "failed" ? undefined : settlement.receipt;
  const gas = mined ? gasFigures(mined) : { gasUsed: null, gasPrice: null, totalGasFee: null };
  const errorMessage =
    settlement.status === "failed" ? settlement.reason : settlement.status === "reverted" ? "the transaction reverted on chain" : null;
  statements.push(
    db
      .prepare(
        `update transactions set status = ?, transaction_hash = ?, gas_used = ?, gas_price = ?, total_gas_fee = ?,
                block_number = ?, error_message = ?, updated_at = ?
         where id = ? and status = 'pending'`,
      )
      .bind(
        settlement.status,
        mined?.transactionHash ?? record.hashes.at(-1)?.hash ?? null,
        gas.gasUsed,
        gas.gasPrice,
        gas.totalGasFee,
        mined ? Number(mined.blockNumber) : null,
        errorMessage,
        now,
        record.id,
      ),
  );
  await db.batch(statements);
}

async function confirmedEffects(
  ctx: ServiceContext,
  record: WatchedTransaction,
  receipt: TransactionReceipt,
  stillPending: { sql: string; params: unknown[] },
): Promise<D1PreparedStatement[]> {
  if (record.kind !== "claim" && record.kind !== "mint") return [];
  const payload = await claimPayload(ctx, record.id);
  if (!payload) return [];
  const mints = erc721Transfers(receipt.logs).filter((transfer) => isMint(transfer) && transfer.contract === payload.contract);
  // The receipt is authoritative: the i-th minted token gets the i-th override.
  const assets: AssetFields[] = await mintedAssetFields(ctx, payload, mints.map((m) => m.tokenId));
  await writeMintedMetadata(ctx, payload, mints.map((m) => m.tokenId));
  return mints.flatMap((transfer, index) => {
    const guard = newLogGuard(record.chainId, transfer);
    return [claimLog(ctx.env.DB, guard, stillPending), ...erc721TransferStatements(ctx.env.DB, guard, transfer, assets[index] ?? null)];
  });
}

async function claimPayload(ctx: ServiceContext, transactionId: string): Promise<ClaimPayload | null> {
  const row = await ctx.env.DB.prepare("select payload from transactions where id = ?").bind(transactionId).first<{ payload: string | null }>();
  return row?.payload ? (JSON.parse(row.payload) as ClaimPayload) : null;
}
