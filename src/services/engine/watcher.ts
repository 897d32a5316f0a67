// One poll of a pending transaction (thirdweb Engine's rule: reload state, exit unless still
// pending). Finds the receipt of any hash the transaction has had, rebroadcasts bytes the node
// lost, re-prices after `bumpAfterBlocks` blocks unmined (next in line, or priced out), and after
// the deadline, or once the project cancels it, takes the nonce with a 0-value self-transfer and
// ends `failed`.
import { erc721Transfers, isMint } from "../../chain/transfer-logs";
import { blockNumber, broadcastRaw, latestBaseFee, nodeKnowsTransaction, receiptOrNull, transactionCount, type TransactionReceipt } from "../../chain/transactions";
import { getChain } from "../../lib/chains";
import type { ServiceContext } from "../context";
import { engineConfig } from "./config";
import { finalizeTransaction, type Settlement } from "./finalize";
import { holdsSubject } from "./kinds";
import type { SubjectRef } from "./pending-subjects";
import { ASK_BEFORE_REBROADCAST_MS } from "./broadcast-decisions";
import { rowAnnounces, updatePendingHash } from "./transaction-rows";
import type { SentHash, WatchedTransaction } from "./types";

export interface SequencerPort {
  /** False while the sequencer may still take the transaction back (decision 100). */
  mayRebroadcast(transactionId: string): Promise<boolean> | boolean;
  bump(record: WatchedTransaction): Promise<WatchedTransaction>;
  fill(record: WatchedTransaction): Promise<WatchedTransaction>;
  settleReservation(contract: string, nonce: number, nextTokenIdAfter: number | null): Promise<void>;
  releaseSubject(subject: SubjectRef, transactionId: string, confirmed: boolean): Promise<void>;
}

/** The watcher's own storage, as a poll needs it. */
export interface RecordStore {
  /**
   * Stores a re-signed record before its bytes go out (the rule `submit` follows). Throws
   * SupersededRecord when the stored record is no longer this attempt.
   */
  save(record: WatchedTransaction): Promise<void>;
  /** Whether the stored record is still the attempt this poll started from. */
  isCurrent(): Promise<boolean>;
  /** The project asked for the transaction to be cancelled (POST /v1/transactions/{id}/cancel). */
  cancelRequested: boolean;
}

/** The sequencer replaced (nonce re-sign) or withdrew the record this poll started from. */
export class SupersededRecord extends Error {
  override readonly name = "SupersededRecord";
}

const senderOf = (record: WatchedTransaction) => ({ address: record.walletAddress, nonce: record.nonce });

/** One attempt of a transaction: a nonce re-sign starts a new one, a fee bump does not. */
export const attemptOf = (record: WatchedTransaction) => record.hashes[0]!.hash;

export interface PollResult {
  record: WatchedTransaction;
  /** When to poll again; null once settled. */
  nextPollInMs: number | null;
}

const FILL_REASON = "not mined before the deadline; its nonce was taken by a 0-value self-transfer";
const CANCEL_REASON = "cancelled at the project's request; its nonce was taken by a 0-value self-transfer";

// A row is written before the first broadcast or the whole transaction is withdrawn (decision 26);
// D1 gives up on a statement after 30 s, so a row still missing after this never comes.
export const UNANNOUNCED_GRACE_MS = 60_000;
/** How long a nonce must look taken by another transaction before ours is given up. */
export const NONCE_TAKEN_CONFIRM_MS = 5_000;

export function pollDelay(config: ReturnType<typeof engineConfig>, polls: number): number {
  // Fast while young (most transactions land in the next block or two), slower later.
  return Math.min(config.maxPollMs, config.pollMs * 2 ** Math.floor(polls / 5));
}

async function findReceipt(rpcUrl: string, record: WatchedTransaction): Promise<{ receipt: TransactionReceipt; sent: SentHash } | null> {
  const latest = record.hashes.at(-1)!;
  const receipt = await receiptOrNull(rpcUrl, latest.hash);
  if (receipt) return { receipt, sent: latest };
  if (record.hashes.length === 1) return null;
  // An earlier version may have been mined instead of the latest (same nonce, so at most one).
  const minedCount = await transactionCount(rpcUrl, record.walletAddress, "latest");
  if (minedCount <= record.nonce) return null;
  for (const sent of record.hashes.slice(0, -1).reverse()) {
    const earlier = await receiptOrNull(rpcUrl, sent.hash);
    if (earlier) return { receipt: earlier, sent };
  }
  return null;
}

function settlementOf(record: WatchedTransaction, found: { receipt: TransactionReceipt; sent: SentHash }): Settlement {
  if (found.sent.purpose === "fill") return { status: "failed", reason: record.cancelled ? CANCEL_REASON : FILL_REASON, receipt: found.receipt };
  if (found.receipt.status !== "success") return { status: "reverted", receipt: found.receipt };
  // A call to an address without code succeeds: a claim sent while its drop's deploy was pending,
  // whose deploy then never landed, mined and minted nothing (decision 60).
  if (record.reservation && nextTokenIdAfter(found.receipt, record.reservation.contract) === null) {
    return { status: "reverted", receipt: found.receipt, reason: `nothing was minted: ${record.reservation.contract} has no drop contract (its deployment did not land)` };
  }
  return { status: "confirmed", receipt: found.receipt };
}

export async function pollOnce(ctx: ServiceContext, stored: WatchedTransaction, sequencer: SequencerPort, store: RecordStore): Promise<PollResult> {
  if (stored.settled) return { record: stored, nextPollInMs: null };
  const config = engineConfig(ctx.env);
  const rpcUrl = getChain(ctx.env, stored.chainId).rpcUrl;
  // Marked before anything else: the deadline's filler may be the one mined, and a cancellation
  // that came after it still says why the transaction ended.
  let record: WatchedTransaction = { ...stored, polls: stored.polls + 1, ...(store.cancelRequested ? { cancelled: true as const } : {}) };

  const found = await findReceipt(rpcUrl, record);
  if (found) return settle(ctx, record, settlementOf(record, found), sequencer, store);

  // The nonce went to a transaction we never signed (sent outside the service): ours can't land.
  const mined = await transactionCount(rpcUrl, record.walletAddress, "latest");
  if (mined > record.nonce) {
    const again = await findReceipt(rpcUrl, record);
    if (again) return settle(ctx, record, settlementOf(record, again), sequencer, store);
    // Behind a load balancer the count and the receipt can come from nodes a block apart: a mined
    // transaction of ours must not end `failed`, so the nonce has to look taken for a while.
    record.nonceTakenSince ??= Date.now();
    if (Date.now() - record.nonceTakenSince < NONCE_TAKEN_CONFIRM_MS) return { record, nextPollInMs: pollDelay(config, record.polls) };
    return settle(ctx, record, { status: "failed", reason: "its nonce was used by another transaction from the project wallet" }, sequencer, store);
  }
  delete record.nonceTakenSince;

  const latest = record.hashes.at(-1)!;
  const head = Number(await blockNumber(rpcUrl));
  const fillNow = !record.filling && (await fillDue(record, config, sequencer, store));
  // A cancelled call's bytes never go out again (a filler's do, when the node lost them).
  const holdBack = fillNow || (store.cancelRequested && !record.filling);
  let underpriced = false;
  if (!(await nodeKnowsTransaction(rpcUrl, latest.hash))) {
    if (!record.filling && !(await rowAnnounces(ctx.db, record.id, record.nonce))) return unannounced(rpcUrl, record, config, sequencer, store);
    // Lost from the pool (dropped, node restart, failed broadcast): the same bytes again. A node
    // that refuses them as underpriced (the base fee rose past their fee cap) gets a re-priced copy.
    if (!holdBack && (await maySendAgain(record, sequencer, store))) underpriced = (await broadcastRaw(rpcUrl, record.raw, senderOf(record))).kind === "underpriced";
    record.pendingSinceBlock = null;
  } else if (record.pendingSinceBlock === null) {
    record.pendingSinceBlock = head;
  }

  const budgetLeft = record.bumps < config.maxBumps;
  if (fillNow) {
    record = await sequencer.fill(record);
    await store.save(record);
    await broadcastRaw(rpcUrl, record.raw, senderOf(record));
  } else if ((budgetLeft || record.filling) && (await repriceDue(rpcUrl, record, { waited: waitedBlocks(config, record, head), mined, underpriced, budgetLeft }))) {
    record = await sequencer.bump(record);
    await store.save(record);
    // The record shows the latest hash of the intended transaction, never the filler's.
    if (!record.filling) await updatePendingHash(ctx.db, record.id, record.hashes.at(-1)!.hash, record.nonce);
    await broadcastRaw(rpcUrl, record.raw, senderOf(record));
  }
  // A cancellation still waiting for the sequencer's answer is looked at again soon.
  const waitingToCancel = store.cancelRequested && !record.filling;
  return { record, nextPollInMs: waitingToCancel ? config.pollMs : pollDelay(config, record.polls) };
}

/**
 * Whether the nonce is to be filled now: past the deadline, or cancelled by the project. A
 * cancellation waits while the sequencer may still take the transaction back (decision 100): a
 * filler sent for a nonce it then hands out again would collide with its next transaction.
 */
async function fillDue(record: WatchedTransaction, config: ReturnType<typeof engineConfig>, sequencer: SequencerPort, store: RecordStore): Promise<boolean> {
  if (Date.now() - record.createdAt > config.failAfterMs) return true;
  return store.cancelRequested && (await maySendAgain(record, sequencer, store));
}

/**
 * Whether the original bytes may go out again from here (decision 100): not while the sequencer
 * is still answering their request or has just taken them back (a young record only; no answer
 * counts as no, for this poll), and not once `forget` has deleted the record this poll read.
 * A filler is the sequencer's own and always may.
 */
async function maySendAgain(record: WatchedTransaction, sequencer: SequencerPort, store: RecordStore): Promise<boolean> {
  if (record.filling) return true;
  const asked = async () => sequencer.mayRebroadcast(record.id);
  if (Date.now() - record.createdAt < ASK_BEFORE_REBROADCAST_MS && !(await asked().catch(() => false))) return false;
  if (!(await store.isCurrent())) throw new SupersededRecord(`transaction ${record.id} was re-signed or withdrawn during the poll`);
  return true;
}

const waitedBlocks = (config: ReturnType<typeof engineConfig>, record: WatchedTransaction, head: number) =>
  record.pendingSinceBlock !== null && head - record.pendingSinceBlock >= config.bumpAfterBlocks;

/**
 * Whether to re-price now (decision 84), for a record with budget left or a filler. It is due when
 * the node refused the bytes as underpriced, or when `bumpAfterBlocks` blocks passed unmined and a
 * higher price can help: the transaction is next in line, or the base fee has risen past its fee
 * cap (behind an earlier nonce that is not mined, a higher price alone buys nothing; that one's
 * watcher re-prices it). A filler past its budget is still re-priced once the base fee has risen
 * past its cap: left as it is, it would keep every later transaction of the wallet waiting for the
 * base fee to come back down. The budget bounds re-pricing that outbids the market, not re-pricing
 * that follows it. The base fee is read at most once, and only when it decides.
 */
async function repriceDue(
  rpcUrl: string,
  record: WatchedTransaction,
  state: { waited: boolean; mined: number; underpriced: boolean; budgetLeft: boolean },
): Promise<boolean> {
  let baseFeeRead: Promise<boolean> | undefined;
  const pricedOutNow = () => (baseFeeRead ??= pricedOut(rpcUrl, record));
  const stalled = state.waited && (state.mined === record.nonce || (await pricedOutNow()));
  if (!stalled && !state.underpriced) return false;
  return state.budgetLeft || state.underpriced || pricedOutNow();
}

/** Whether the latest block's base fee is above the transaction's fee cap: it cannot be mined as priced. */
async function pricedOut(rpcUrl: string, record: WatchedTransaction): Promise<boolean> {
  return (await latestBaseFee(rpcUrl)) > BigInt(record.maxFeePerGas);
}

/**
 * The node never saw these bytes and no row announces them: the sequencer withdrew the
 * transaction but could not reach this watcher to say so, and kept the nonce for it. Its bytes
 * never go out; once its row can no longer be on its way, the nonce is filled so later
 * transactions are not stuck behind it (and the filler's settlement releases its holds).
 */
async function unannounced(
  rpcUrl: string,
  record: WatchedTransaction,
  config: ReturnType<typeof engineConfig>,
  sequencer: SequencerPort,
  store: RecordStore,
): Promise<PollResult> {
  if (Date.now() - record.createdAt < UNANNOUNCED_GRACE_MS) return { record, nextPollInMs: pollDelay(config, record.polls) };
  const filler = await sequencer.fill(record);
  await store.save(filler);
  await broadcastRaw(rpcUrl, filler.raw, senderOf(filler));
  return { record: filler, nextPollInMs: pollDelay(config, filler.polls) };
}

async function settle(
  ctx: ServiceContext,
  record: WatchedTransaction,
  settlement: Settlement,
  sequencer: SequencerPort,
  store: RecordStore,
): Promise<PollResult> {
  await finalizeTransaction(ctx, record, settlement);
  // A re-signed attempt keeps the transaction's id, and so its hold: only the current attempt frees it.
  if (!(await store.isCurrent())) throw new SupersededRecord(`transaction ${record.id} was re-signed or withdrawn during the poll`);
  if (record.reservation) {
    const { contract } = record.reservation;
    const minted = settlement.status === "confirmed" ? nextTokenIdAfter(settlement.receipt, contract) : null;
    await sequencer.settleReservation(contract, record.nonce, minted);
  }
  if (holdsSubject(record)) await sequencer.releaseSubject({ kind: record.kind, subjectId: record.subjectId }, record.id, settlement.status === "confirmed");
  return { record: { ...record, settled: true }, nextPollInMs: null };
}

/** One past the highest id the receipt minted on `contract`; null if it minted none there. */
function nextTokenIdAfter(receipt: TransactionReceipt, contract: string): number | null {
  const ids = erc721Transfers(receipt.logs)
    .filter((transfer) => isMint(transfer) && transfer.contract === contract.toLowerCase())
    .map((transfer) => Number(transfer.tokenId));
  return ids.length ? Math.max(...ids) + 1 : null;
}
