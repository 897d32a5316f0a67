// The one write that ends a transaction: final status, gas figures and the side effects of its
// kind, in a single D1 batch that does nothing unless the row is still `pending`.
import { blockTimestampMs } from "../../chain/log-reader";
import type { TransactionReceipt } from "../../chain/transactions";
import { eq } from "drizzle-orm";
import { transactions } from "../../db/schema";
import { getChain } from "../../lib/chains";
import { claimLog, newLogGuard, type AssetFields } from "../chain-events/apply";
import { knownCollections } from "../collections/known-collections";
import { mintKey } from "../indexer/asset-fields";
import { logEffects } from "../indexer/apply-logs";
import { decodeIndexedLogs, mintsOf, type IndexedEvent } from "../indexer/decode";
import { metadataFor, mintedAssetFields, writeMintedMetadata, type ClaimPayload } from "../drops/minted-metadata";
import type { ServiceContext } from "../context";
import { kickWebhooks } from "../durable-object-stubs";
import { transactionView } from "../transactions/transaction-view";
import { enqueueWebhookStatement, queuedForProjects, webhookPayload } from "../webhooks/events";
import type { WatchedTransaction } from "./types";

export type Settlement =
  | { status: "confirmed"; receipt: TransactionReceipt }
  /** `reason` when the receipt succeeded but did not do what was asked (decision 60). */
  | { status: "reverted"; receipt: TransactionReceipt; reason?: string }
  | { status: "failed"; reason: string; receipt?: TransactionReceipt };

// Pending *with this attempt's nonce*: after a nonce-too-low re-sign the row belongs to the new
// nonce, and the old attempt's watcher must not settle it.
const STILL_PENDING = { sql: "exists (select 1 from transactions where id = ? and status = 'pending' and nonce = ?)" };

function gasFigures(receipt: TransactionReceipt) {
  const gasUsed = receipt.gasUsed;
  const gasPrice = receipt.effectiveGasPrice;
  // OP-stack chains (Soneium) also charge an L1 data fee, reported on the receipt.
  const l1Fee = (receipt as { l1Fee?: bigint | null }).l1Fee ?? 0n;
  return { gasUsed: gasUsed.toString(), gasPrice: gasPrice.toString(), totalGasFee: (gasUsed * gasPrice + l1Fee).toString() };
}

export async function finalizeTransaction(ctx: ServiceContext, record: WatchedTransaction, settlement: Settlement): Promise<void> {
  const db = ctx.env.DB;
  const stillPending = { ...STILL_PENDING, params: [record.id, record.nonce] };
  const statements: D1PreparedStatement[] = [];
  const now = Date.now();

  // The row is read first: its payload drives a claim's effects, the row itself the webhook event.
  const row = await ctx.db.select().from(transactions).where(eq(transactions.id, record.id)).get();
  if (settlement.status === "confirmed") {
    const payload = (record.kind === "claim" || record.kind === "mint") && row?.payload ? (JSON.parse(row.payload) as ClaimPayload) : null;
    statements.push(...(await confirmedEffects(ctx, record, settlement.receipt, stillPending, payload)));
  }
  if (record.kind === "deploy" && record.subjectId) {
    statements.push(
      db
        .prepare(`update drops set status = ?, updated_at = ? where id = ? and status = 'pending' and ${STILL_PENDING.sql}`)
        .bind(settlement.status === "confirmed" ? "deployed" : "failed", now, record.subjectId, ...stillPending.params),
    );
  }

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

  // The webhook event is queued in the same batch, so it exists exactly when the status changed.
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
    statements.push(enqueueWebhookStatement(db, webhookPayload(`transaction.${settlement.status}`, { transaction: settled }), { sql: "?", params: [record.projectId] }, stillPending));
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
  const results = await db.batch(statements);
  // Wakes only the dispatchers the batch gave work: this project's transaction event, and the
  // listing project's order.filled (queued with a fill's effects). Most projects have no endpoint.
  await Promise.all(queuedForProjects(results).map((projectId) => kickWebhooks(ctx.env, projectId)));
}

/**
 * The receipt's logs, applied like the indexer applies them (it leaves a pending transaction's
 * logs to this handler): transfers of known collections, Seaport fills. A claim's or mint's new
 * tokens get the request's metadata.
 */
async function confirmedEffects(
  ctx: ServiceContext,
  record: WatchedTransaction,
  receipt: TransactionReceipt,
  stillPending: { sql: string; params: unknown[] },
  payload: ClaimPayload | null,
): Promise<D1PreparedStatement[]> {
  const db = ctx.env.DB;
  const chain = getChain(ctx.env, record.chainId);
  const events = decodeIndexedLogs(receipt.logs, chain.seaportAddress);
  if (!events.length) return [];
  const known = await knownCollections(db, chain.chainId, events.filter((e) => e.type !== "seaport").map(contractOf));
  const relevant = events.filter((event) => event.type === "seaport" || known.has(contractOf(event)));

  const assets = new Map<string, AssetFields>();
  const minted = payload ? relevant.flatMap(mintsOf).filter((mint) => mint.contract === payload.contract).map((mint) => mint.tokenId) : [];
  const statements: D1PreparedStatement[] = [];
  if (payload) {
    // The receipt is authoritative: the i-th minted token gets the i-th override.
    const fields = await mintedAssetFields(ctx, payload, minted);
    minted.forEach((tokenId, index) => assets.set(mintKey(payload.contract, tokenId), fields[index]!));
    await writeMintedMetadata(ctx, payload, minted);
    statements.push(...requestMetadataOverwrites(db, chain.chainId, payload, minted, fields, stillPending));
  }
  if (payload && minted.length) {
    // D1's copy of the next id only seeds a sequencer that lost its state; the chain decides.
    const next = Math.max(...minted.map(Number)) + 1;
    statements.push(
      db.prepare(`update drops set next_token_id = max(next_token_id, ?), updated_at = ? where id = ? and ${stillPending.sql}`).bind(next, Date.now(), payload.dropId, ...stillPending.params),
    );
  }
  const sells = relevant.some((event) => event.type === "seaport" && event.event.kind === "OrderFulfilled");
  const blockTime = sells ? await blockTimestampMs(chain.rpcUrl, Number(receipt.blockNumber)) : Date.now();
  return statements.concat(
    relevant.flatMap((event) => {
      const guard = newLogGuard(chain.chainId, event);
      return [claimLog(db, guard, stillPending), ...logEffects(db, chain, guard, event, assets, blockTime)];
    }),
  );
}

/**
 * The request's own metadata on tokens whose asset rows already exist. The indexer applies a mint
 * first when the row showed another hash of this transaction (a fee bump's, while the original
 * was mined), and gives the tokens the drop's default fields; the log claim then skips this
 * handler's insert (decision 64). Guarded like the rest of the batch, not by the log claim.
 */
function requestMetadataOverwrites(
  db: D1Database,
  chainId: number,
  payload: ClaimPayload,
  minted: string[],
  fields: AssetFields[],
  stillPending: { sql: string; params: unknown[] },
): D1PreparedStatement[] {
  const now = Date.now();
  return minted.flatMap((tokenId, index) => {
    const asset = fields[index]!;
    if (!metadataFor(payload, index)) return [];
    return [
      db
        .prepare(
          `update assets set name = ?, name_lower = ?, description = ?, image_url = ?, animation_url = ?, updated_at = ?
           where chain_id = ? and contract_address = ? and token_id = ? and ${stillPending.sql}`,
        )
        .bind(asset.name, asset.name?.toLowerCase() ?? null, asset.description, asset.imageUrl, asset.animationUrl, now, chainId, payload.contract, tokenId, ...stillPending.params),
    ];
  });
}

function contractOf(event: IndexedEvent): string {
  switch (event.type) {
    case "erc721":
      return event.transfer.contract;
    case "erc1155":
      return event.transfers[0]!.contract;
    case "approval":
    case "tokenApproval":
      return event.approval.contract;
    case "seaport":
      return "";
  }
}
