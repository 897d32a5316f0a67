// One poll of a pending transaction, carried out: nextPollStep (watcher-steps.ts) decides each
// step from the record's state and what the poll has observed; this loop makes the reads and
// writes it asks for and feeds back what they found.
import { blockNumber, broadcastRaw, latestBaseFee, nodeKnowsTransaction, receiptOrNull, transactionCount } from "../../chain/transactions";
import { getChain } from "../../lib/chains";
import type { ServiceContext } from "../context";
import { engineConfig } from "./config";
import { finalizeTransaction } from "./finalize";
import type { SubjectRef } from "./subject-holds";
import { rowAnnounces, updatePendingHash } from "./transaction-rows";
import type { UnminedTransaction, WatchedTransaction } from "./types";
import { nextPollStep, type FoundReceipt, type PollObservation, type PollStep, type Question } from "./watcher-steps";

export interface SequencerPort {
  /** False while the sequencer may still take the transaction back (decision 100). */
  mayRebroadcast(transactionId: string): Promise<boolean> | boolean;
  bump(record: UnminedTransaction): Promise<UnminedTransaction>;
  fill(record: UnminedTransaction): Promise<UnminedTransaction>;
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
const superseded = (record: WatchedTransaction) => new SupersededRecord(`transaction ${record.id} was re-signed or withdrawn during the poll`);

/** One attempt of a transaction: a nonce re-sign starts a new one, a fee bump does not. */
export const attemptOf = (record: WatchedTransaction) => record.hashes[0]!.hash;

export interface PollResult {
  record: WatchedTransaction;
  /** When to poll again; null once settled. */
  nextPollInMs: number | null;
}

async function findReceipt(rpcUrl: string, record: WatchedTransaction): Promise<FoundReceipt | null> {
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

export async function pollOnce(ctx: ServiceContext, stored: WatchedTransaction, sequencer: SequencerPort, store: RecordStore): Promise<PollResult> {
  const config = engineConfig(ctx.env);
  const seen: PollObservation = { now: Date.now(), cancelRequested: store.cancelRequested };
  let rpc: string | undefined;
  const rpcUrl = () => (rpc ??= getChain(ctx.env, stored.chainId).rpcUrl);
  const observe = async (question: Question): Promise<void> => {
    switch (question) {
      case "receipt":
      case "receiptOnceMined":
        seen[question] = await findReceipt(rpcUrl(), stored);
        return;
      case "minedCount":
        seen.minedCount = await transactionCount(rpcUrl(), stored.walletAddress, "latest");
        return;
      case "head":
        seen.head = Number(await blockNumber(rpcUrl()));
        return;
      case "sequencerAllowsResend":
        seen.sequencerAllowsResend = await (async () => sequencer.mayRebroadcast(stored.id))().catch(() => false);
        return;
      case "recordCurrent":
        seen.recordCurrent = await store.isCurrent();
        return;
      case "nodeKnowsLatest":
        seen.nodeKnowsLatest = await nodeKnowsTransaction(rpcUrl(), stored.hashes.at(-1)!.hash);
        return;
      case "rowAnnounces":
        seen.rowAnnounces = await rowAnnounces(ctx.db, stored.id, stored.nonce);
        return;
      case "pricedOut":
        seen.pricedOut = (await latestBaseFee(rpcUrl())) > BigInt(stored.maxFeePerGas);
        return;
    }
  };

  for (;;) {
    const step: PollStep = nextPollStep(stored, seen, config);
    switch (step.type) {
      case "look":
        await observe(step.question);
        break;
      case "resend":
        seen.resent = (await broadcastRaw(rpcUrl(), stored.raw, senderOf(stored))).kind;
        break;
      case "superseded":
        throw superseded(stored);
      case "none":
        return { record: stored, nextPollInMs: null };
      case "wait":
        return { record: step.record, nextPollInMs: step.pollInMs };
      case "settle":
        return settle(ctx, step, sequencer, store);
      case "fill":
      case "reprice": {
        const resigned = step.type === "fill" ? await sequencer.fill(step.record) : await sequencer.bump(step.record);
        await store.save(resigned);
        // The row shows the latest hash of the intended transaction, never the filler's.
        if (step.type === "reprice" && step.showHashOnRow) await updatePendingHash(ctx.db, resigned.id, resigned.hashes.at(-1)!.hash, resigned.nonce);
        await broadcastRaw(rpcUrl(), resigned.raw, senderOf(resigned));
        return { record: resigned, nextPollInMs: step.pollInMs };
      }
    }
  }
}

async function settle(ctx: ServiceContext, step: Extract<PollStep, { type: "settle" }>, sequencer: SequencerPort, store: RecordStore): Promise<PollResult> {
  const { record } = step;
  await finalizeTransaction(ctx, record, step.settlement);
  // A re-signed attempt keeps the transaction's id, and so its hold: only the current attempt frees it.
  if (!(await store.isCurrent())) throw superseded(record);
  if (step.tokenIds) await sequencer.settleReservation(step.tokenIds.contract, record.nonce, step.tokenIds.nextTokenIdAfter);
  if (step.releaseSubject) await sequencer.releaseSubject({ kind: record.kind, subjectId: record.subjectId }, record.id, step.releaseSubject.confirmed);
  return { record: { ...record, state: "settled" }, nextPollInMs: null };
}
