// Applies one range's logs in chain order. Each log gets its own claim in chain_events and its
// effects guarded by it (services/chain-events); several logs share a D1 batch to keep the
// number of D1 calls per cron invocation low, which changes nothing about exactly-once.
import type { LogRef } from "../../chain/log-ref";
import { batchOverJsonLists } from "../../db/json-list";
import type { ChainLog } from "../../chain/log-reader";
import type { ChainConfig } from "../../lib/chains";
import {
  approvalForAllStatements,
  claimLog,
  erc1155TransferStatements,
  erc721TransferStatements,
  newLogGuard,
  reincludedTransferStatement,
  tokenApprovalStatements,
  type AssetFields,
} from "../chain-events/apply";
import { seaportEventStatements } from "../chain-events/seaport";
import { assetFieldsFor, assetRows, mintKey, type IndexedCollection } from "./asset-fields";
import { STATEMENTS_PER_BATCH } from "./config";
import { decodeIndexedLogs, handoversOf, mintsOf, type IndexedEvent } from "./decode";
import { reviveListings } from "./revive-listings";
import { fetchSaleBlockTimes } from "./sale-block-times";
import { withRelevantSeaportEvents } from "./seaport-relevance";
import { withCoveredListings } from "./cleared-approvals";
import { queuedForProjects } from "../webhooks/events";

export interface RangeScope {
  db: D1Database;
  chain: ChainConfig;
  /** The collections whose logs this read covers, by lower-case contract address. */
  collections: Map<string, IndexedCollection>;
  /** Seaport address when this read includes Seaport's logs. */
  seaport: string | null;
  budget: { tokenUriLookups: number };
  /** Block times fetched during this run. */
  blockTimes: Map<number, number>;
  /** Projects the applied logs queued webhook deliveries for. */
  webhookProjects: Set<string>;
}

const ZERO = "0x0000000000000000000000000000000000000000";
/**
 * A pending row older than this is not waited for: its watcher settles well within its deadline
 * (ENGINE_FAIL_AFTER_SECONDS, 15 min by default) unless something is broken, and a row that never
 * settles would otherwise hold every collection and Seaport on the chain for good. Applying its
 * logs first loses nothing: the settlement still writes the request's metadata (decision 64).
 */
export const PENDING_HOLD_MAX_MS = 60 * 60 * 1000;

/**
 * Applies the logs. `stopBefore` is set when a log belongs to a transaction the engine is still
 * finalising (row `pending`, for at most PENDING_HOLD_MAX_MS): its receipt handler applies that
 * transaction with the request's metadata, so the indexer applies only the blocks before it and
 * retries from there next run.
 */
export async function applyLogs(scope: RangeScope, logs: ChainLog[]): Promise<{ stopBefore: number | null }> {
  if (!logs.length) return { stopBefore: null };
  const { db, chain } = scope;
  const decoded = decodeIndexedLogs(logs, scope.seaport);
  const { applied, appliedElsewhere, pending } = await knownTransactions(db, chain.chainId, [...new Set(decoded.map((e) => e.transactionHash))], Date.now() - PENDING_HOLD_MAX_MS);
  const held = decoded.filter((e) => pending.has(e.transactionHash)).map((e) => e.blockNumber);
  const stopBefore = held.length ? Math.min(...held) : null;
  const inRange = decoded.filter((e) => stopBefore === null || e.blockNumber < stopBefore);
  const unapplied = inRange.filter((e) => !applied(e));
  const events = await withCoveredListings(db, chain, await withRelevantSeaportEvents(db, chain.chainId, unapplied));

  // Mints, and tokens D1 has never seen (minted before a registered collection's fromBlock),
  // get an asset row with their first applied transfer (decision 54).
  const tracked = (token: { contract: string }) => scope.collections.has(token.contract);
  const [mints, handovers] = [events.flatMap(mintsOf).filter(tracked), events.flatMap(handoversOf).filter(tracked)];
  const rows = await assetRows(db, chain.chainId, [...mints, ...handovers]);
  const unseen = handovers.filter((token) => !rows.has(mintKey(token.contract, token.tokenId)));
  const assets = await assetFieldsFor(db, chain, [...mints, ...unseen], scope.collections, scope.budget, rows);
  await fetchSaleBlockTimes(scope, events);

  // Transfers a reorg brought back in another block keep their first effects; their ownership rows
  // take the new position before this range's later transfers are ordered against them (decision 92).
  let batch = inRange.flatMap((e) => (e.type === "erc721" && e.transfer.to !== ZERO && appliedElsewhere(e) ? [reincludedTransferStatement(db, chain.chainId, e.transfer)] : []));
  for (const event of events) {
    const guard = newLogGuard(chain.chainId, event);
    const effects = logEffects(db, chain, guard, event, assets, scope.blockTimes.get(event.blockNumber) ?? Date.now());
    if (!effects.length) continue; // e.g. an approval granted: nothing to record
    if (batch.length && batch.length + effects.length + 1 > STATEMENTS_PER_BATCH) {
      await applyBatch(scope, batch);
      batch = [];
    }
    batch.push(claimLog(db, guard), ...effects);
  }
  if (batch.length) await applyBatch(scope, batch);
  // Logs a receipt applied first count too: their effects (an over-listed sender) may need undoing.
  await reviveListings(db, chain, inRange);
  return { stopBefore };
}

async function applyBatch(scope: RangeScope, batch: D1PreparedStatement[]) {
  for (const projectId of queuedForProjects(await scope.db.batch(batch))) scope.webhookProjects.add(projectId);
}

/** The guarded statements one decoded log stands for (shared with the engine's receipt handler). */
export function logEffects(
  db: D1Database,
  chain: ChainConfig,
  guard: ReturnType<typeof newLogGuard>,
  event: IndexedEvent,
  assets: ReadonlyMap<string, AssetFields>,
  blockTimestampMs: number,
): D1PreparedStatement[] {
  const kept = (operators: string[] | undefined) => (operators ? { seaport: chain.seaportAddress, operators } : undefined);
  switch (event.type) {
    // `assets` holds the tokens that need a row: mints, and tokens D1 has not seen yet.
    case "erc721": {
      const t = event.transfer;
      return erc721TransferStatements(db, guard, t, t.to === ZERO ? null : (assets.get(mintKey(t.contract, t.tokenId)) ?? null), kept(event.keepOperators));
    }
    case "erc1155":
      return event.transfers.flatMap((t) => erc1155TransferStatements(db, guard, t, t.to === ZERO ? null : (assets.get(mintKey(t.contract, t.id)) ?? null)));
    case "approval":
      return approvalForAllStatements(db, guard, event.approval, chain.seaportAddress);
    case "tokenApproval":
      return tokenApprovalStatements(db, guard, event.approval, chain.seaportAddress, kept(event.keepOperators));
    case "seaport":
      return seaportEventStatements(db, guard, event.event, { chainId: chain.chainId, blockTimestampMs, nowMs: Date.now() });
  }
}

/**
 * What D1 knows of these transactions: the logs already applied (by a receipt handler or an
 * earlier run) and the blocks they were applied from, and the transactions pending in the engine
 * since `pendingSinceMs`.
 */
async function knownTransactions(db: D1Database, chainId: number, hashes: string[], pendingSinceMs: number) {
  const claimed = new Set<string>();
  const claimedFrom = new Map<string, Set<string>>();
  const pending = new Set<string>();
  // JSON list parameters: D1 binds at most 100 values and 1 MB per string (db/json-list.ts).
  const claimsOf = db.prepare("select transaction_hash, log_index, block_hash from chain_events where chain_id = ?1 and transaction_hash in (select value from json_each(?2))");
  const pendingOf = db.prepare(
    "select transaction_hash from transactions where chain_id = ?1 and status = 'pending' and created_at > ?3 and transaction_hash in (select value from json_each(?2))",
  );
  const [claims = [], pendingRows = []] = await batchOverJsonLists<{ transaction_hash: string; log_index?: number; block_hash?: string | null }>(db, hashes, (list) => [
    claimsOf.bind(chainId, list),
    pendingOf.bind(chainId, list, pendingSinceMs),
  ]);
  for (const row of claims) {
    claimed.add(`${row.transaction_hash}:${row.log_index}`);
    if (row.block_hash) claimedFrom.set(row.transaction_hash, (claimedFrom.get(row.transaction_hash) ?? new Set()).add(row.block_hash));
  }
  for (const row of pendingRows) pending.add(row.transaction_hash);
  /** Its transaction was applied from another block (claimLog's rule, checked early). */
  const appliedElsewhere = (log: LogRef) => log.blockHash !== null && [...(claimedFrom.get(log.transactionHash) ?? [])].some((hash) => hash !== log.blockHash);
  /** Claimed already, or applied from another block. */
  const applied = (log: LogRef) => claimed.has(`${log.transactionHash}:${log.logIndex}`) || appliedElsewhere(log);
  return { applied, appliedElsewhere, pending };
}
