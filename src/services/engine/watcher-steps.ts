// What a poll of a pending transaction does next, decided from the record's state and what the
// poll has observed so far: one pure function, nextPollStep. It asks for each observation only
// when a decision needs it (a poll's reads are RPC calls and D1 queries), so pollOnce
// (watcher.ts) runs a short loop: carry out the step, note what it observed, ask again. The
// rules (thirdweb Engine's: reload state, exit unless still pending): a receipt of any version
// settles it; bytes the node lost go out again; after `bumpAfterBlocks` blocks unmined it is
// re-priced (next in line, or priced out); past the deadline, or once the project cancels it,
// a 0-value transfer to itself takes the nonce and it ends `failed`.
import { erc721Transfers, isMint } from "../../chain/transfer-logs";
import type { BroadcastOutcome } from "../../chain/rpc-errors";
import type { TransactionReceipt } from "../../chain/transactions";
import { ASK_BEFORE_REBROADCAST_MS } from "./resend-gate";
import type { EngineConfig } from "./config";
import { holdsSubject, type Settlement } from "./kinds";
import type { SentHash, UnminedTransaction, WatchedTransaction } from "./types";

// A row is written before the first broadcast or the whole transaction is withdrawn (decision 26);
// D1 gives up on a statement after 30 s, so a row still missing after this never comes.
export const UNANNOUNCED_GRACE_MS = 60_000;
/** How long a nonce must look taken by another transaction before ours is given up. */
export const NONCE_TAKEN_CONFIRM_MS = 5_000;

const FILL_REASON = "not mined before the deadline; its nonce was taken by a 0-value self-transfer";
const CANCEL_REASON = "cancelled at the project's request; its nonce was taken by a 0-value self-transfer";
const NONCE_USED_REASON = "its nonce was used by another transaction from the project wallet";

/** A receipt of one of the versions the transaction has had. */
export interface FoundReceipt {
  receipt: TransactionReceipt;
  sent: SentHash;
}

/** What a poll has observed; a field is absent until a decision asked for it. */
export interface PollObservation {
  /** The poll's clock (ms), read once when it starts. */
  now: number;
  /** The project asked to cancel the transaction (POST /v1/transactions/{id}/cancel). */
  cancelRequested: boolean;
  /** A receipt of any version (null: none). */
  receipt?: FoundReceipt | null;
  /** The wallet's mined transaction count. */
  minedCount?: number;
  /** A receipt, looked for again once the count showed the nonce mined. */
  receiptOnceMined?: FoundReceipt | null;
  /** The latest block number. */
  head?: number;
  /** The sequencer no longer may take the transaction back (decision 100); no answer counts as no. */
  sequencerAllowsResend?: boolean;
  /** The stored record is still the attempt this poll started from (not re-signed or withdrawn). */
  recordCurrent?: boolean;
  /** The node knows the latest version (pending or mined). */
  nodeKnowsLatest?: boolean;
  /** D1's row shows this attempt's nonce (a withdrawn transaction has no row). */
  rowAnnounces?: boolean;
  /** What the node answered when the latest bytes were sent again. */
  resent?: BroadcastOutcome["kind"];
  /** The latest base fee is above the transaction's fee cap. */
  pricedOut?: boolean;
}

/** The observations a poll can be asked for. */
export type Question = Exclude<keyof PollObservation, "now" | "cancelRequested" | "resent">;

export type PollStep =
  /** Observe `question`, then decide again. */
  | { type: "look"; question: Question }
  /** Send the latest bytes again (the node lost them); what it answered goes to `resent`. */
  | { type: "resend" }
  /** The sequencer re-signed or withdrew the record meanwhile: this poll stops, writing nothing. */
  | { type: "superseded" }
  /** Nothing to do for a settled record. */
  | { type: "none" }
  /** Keep `record` and poll again in `pollInMs`. */
  | { type: "wait"; record: UnminedTransaction; pollInMs: number }
  /** Write the outcome, then free what the transaction held: its token ids, its subject. */
  | {
      type: "settle";
      record: UnminedTransaction;
      settlement: Settlement;
      /** The mint's reservation: confirmed with the chain's next id, or given back (null). */
      tokenIds?: { contract: string; nextTokenIdAfter: number | null };
      /** Its kind holds the subject until it settles (engine/kinds.ts). */
      releaseSubject?: { confirmed: boolean };
    }
  /** Have the sequencer sign a filler for the nonce; store and send it. */
  | { type: "fill"; record: UnminedTransaction; pollInMs: number }
  /** Have the sequencer re-sign the latest call at higher fees; store and send it (and show its hash on the row when it is the intended call). */
  | { type: "reprice"; record: UnminedTransaction; showHashOnRow: boolean; pollInMs: number };

export function pollDelay(config: EngineConfig, polls: number): number {
  // Fast while young (most transactions land in the next block or two), slower later.
  return Math.min(config.maxPollMs, config.pollMs * 2 ** Math.floor(polls / 5));
}

/** When to poll `record` again: soon while a cancellation waits for its filler, else by its age. */
export function nextPollIn(config: EngineConfig, record: WatchedTransaction, cancelRequested: boolean): number {
  return cancelRequested && record.state !== "filling" ? config.pollMs : pollDelay(config, record.polls);
}

const look = (question: Question): PollStep => ({ type: "look", question });
const isStep = (decided: boolean | PollStep): decided is PollStep => typeof decided === "object";

/**
 * The next step of a poll of `stored`, given what the poll has observed: the one place that
 * decides how a watched transaction moves between its states. Pure.
 */
export function nextPollStep(stored: WatchedTransaction, seen: PollObservation, config: EngineConfig): PollStep {
  if (stored.state === "settled") return { type: "none" };
  // Marked before anything else: the deadline's filler may be the one mined, and a cancellation
  // that came after it still says why the transaction ended.
  const record: UnminedTransaction = { ...stored, polls: stored.polls + 1, ...(seen.cancelRequested ? { cancelled: true as const } : {}) };

  if (seen.receipt === undefined) return look("receipt");
  if (seen.receipt) return settle(record, settlementOf(record, seen.receipt));

  // The nonce went to a transaction we never signed (sent outside the service): ours can't land.
  if (seen.minedCount === undefined) return look("minedCount");
  if (seen.minedCount > record.nonce) {
    if (seen.receiptOnceMined === undefined) return look("receiptOnceMined");
    if (seen.receiptOnceMined) return settle(record, settlementOf(record, seen.receiptOnceMined));
    // Behind a load balancer the count and the receipt can come from nodes a block apart: a mined
    // transaction of ours must not end `failed`, so the nonce has to look taken for a while.
    const taken = { ...record, nonceTakenSince: record.nonceTakenSince ?? seen.now };
    if (seen.now - taken.nonceTakenSince < NONCE_TAKEN_CONFIRM_MS) return { type: "wait", record: taken, pollInMs: pollDelay(config, taken.polls) };
    return settle(taken, { status: "failed", reason: NONCE_USED_REASON });
  }
  const { nonceTakenSince: _notTaken, ...unmined } = record;

  if (seen.head === undefined) return look("head");
  const fillNow = unmined.state === "sent" ? fillDue(unmined, seen, config) : false;
  if (isStep(fillNow)) return fillNow;
  // A cancelled call's bytes never go out again (a filler's do, when the node lost them).
  const holdBack = fillNow || (seen.cancelRequested && unmined.state === "sent");

  if (seen.nodeKnowsLatest === undefined) return look("nodeKnowsLatest");
  let polled: UnminedTransaction = unmined;
  let underpriced = false;
  if (!seen.nodeKnowsLatest) {
    if (unmined.state === "sent") {
      if (seen.rowAnnounces === undefined) return look("rowAnnounces");
      if (!seen.rowAnnounces) return unannounced(unmined, seen, config);
    }
    // Lost from the pool (dropped, node restart, failed broadcast): the same bytes again. A node
    // that refuses them as underpriced (the base fee rose past their fee cap) gets a re-priced copy.
    if (!holdBack) {
      const mayResend = maySendAgain(unmined, seen);
      if (isStep(mayResend)) return mayResend;
      if (mayResend) {
        if (seen.resent === undefined) return { type: "resend" };
        underpriced = seen.resent === "underpriced";
      }
    }
    polled = { ...unmined, pendingSinceBlock: null };
  } else if (unmined.pendingSinceBlock === null) {
    polled = { ...unmined, pendingSinceBlock: seen.head };
  }

  if (fillNow) return { type: "fill", record: polled, pollInMs: pollDelay(config, polled.polls) };
  const budgetLeft = polled.bumps < config.maxBumps;
  if (budgetLeft || polled.state === "filling") {
    const waited = polled.pendingSinceBlock !== null && seen.head - polled.pendingSinceBlock >= config.bumpAfterBlocks;
    const due = repriceDue(polled, seen, { waited, underpriced, budgetLeft });
    if (isStep(due)) return due;
    if (due) return { type: "reprice", record: polled, showHashOnRow: polled.state === "sent", pollInMs: nextPollIn(config, polled, seen.cancelRequested) };
  }
  return { type: "wait", record: polled, pollInMs: nextPollIn(config, polled, seen.cancelRequested) };
}

function settle(record: UnminedTransaction, settlement: Settlement): PollStep {
  const reserved = record.reservation;
  return {
    type: "settle",
    record,
    settlement,
    ...(reserved
      ? { tokenIds: { contract: reserved.contract, nextTokenIdAfter: settlement.status === "confirmed" ? nextTokenIdAfter(settlement.receipt, reserved.contract) : null } }
      : {}),
    ...(holdsSubject(record) ? { releaseSubject: { confirmed: settlement.status === "confirmed" } } : {}),
  };
}

function settlementOf(record: UnminedTransaction, found: FoundReceipt): Settlement {
  if (found.sent.purpose === "fill") return { status: "failed", reason: record.cancelled ? CANCEL_REASON : FILL_REASON, receipt: found.receipt };
  if (found.receipt.status !== "success") return { status: "reverted", receipt: found.receipt };
  // A call to an address without code succeeds: a claim sent while its drop's deploy was pending,
  // whose deploy then never landed, mined and minted nothing (decision 60).
  if (record.reservation && nextTokenIdAfter(found.receipt, record.reservation.contract) === null) {
    return { status: "reverted", receipt: found.receipt, reason: `nothing was minted: ${record.reservation.contract} has no drop contract (its deployment did not land)` };
  }
  return { status: "confirmed", receipt: found.receipt };
}

/**
 * Whether the nonce is to be filled now: past the deadline, or cancelled by the project. A
 * cancellation waits while the sequencer may still take the transaction back (decision 100): a
 * filler sent for a nonce it then hands out again would collide with its next transaction.
 */
function fillDue(record: UnminedTransaction, seen: PollObservation, config: EngineConfig): boolean | PollStep {
  if (seen.now - record.createdAt > config.failAfterMs) return true;
  return seen.cancelRequested && maySendAgain(record, seen);
}

/**
 * Whether the original bytes may go out again from here (decision 100): not while the sequencer
 * is still answering their request or has just taken them back (a young record only), and not
 * once `forget` has deleted the record this poll read. A filler is the sequencer's own and always may.
 */
function maySendAgain(record: UnminedTransaction, seen: PollObservation): boolean | PollStep {
  if (record.state === "filling") return true;
  if (seen.now - record.createdAt < ASK_BEFORE_REBROADCAST_MS) {
    if (seen.sequencerAllowsResend === undefined) return look("sequencerAllowsResend");
    if (!seen.sequencerAllowsResend) return false;
  }
  if (seen.recordCurrent === undefined) return look("recordCurrent");
  return seen.recordCurrent ? true : { type: "superseded" };
}

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
function repriceDue(record: UnminedTransaction, seen: PollObservation, state: { waited: boolean; underpriced: boolean; budgetLeft: boolean }): boolean | PollStep {
  const pricedOut = (): boolean | PollStep => seen.pricedOut ?? look("pricedOut");
  let stalled = false;
  if (state.waited) {
    const stuck = seen.minedCount === record.nonce || pricedOut();
    if (isStep(stuck)) return stuck;
    stalled = stuck;
  }
  if (!stalled && !state.underpriced) return false;
  return state.budgetLeft || state.underpriced || pricedOut();
}

/**
 * The node never saw these bytes and no row announces them: the sequencer withdrew the
 * transaction but could not reach this watcher to say so, and kept the nonce for it. Its bytes
 * never go out; once its row can no longer be on its way, the nonce is filled so later
 * transactions are not stuck behind it (and the filler's settlement releases its holds).
 */
function unannounced(record: UnminedTransaction, seen: PollObservation, config: EngineConfig): PollStep {
  const pollInMs = pollDelay(config, record.polls);
  return seen.now - record.createdAt < UNANNOUNCED_GRACE_MS ? { type: "wait", record, pollInMs } : { type: "fill", record, pollInMs };
}

/** One past the highest id the receipt minted on `contract`; null if it minted none there. */
function nextTokenIdAfter(receipt: TransactionReceipt, contract: string): number | null {
  const ids = erc721Transfers(receipt.logs)
    .filter((transfer) => isMint(transfer) && transfer.contract === contract.toLowerCase())
    .map((transfer) => Number(transfer.tokenId));
  return ids.length ? Math.max(...ids) + 1 : null;
}
