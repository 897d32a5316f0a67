// The two pure functions that move a transaction: nextPollStep (a watcher's poll, from the
// record's state and what the poll observed) and nextSendStep (the sequencer's request), as
// tables of (state, observation) -> next step. No chain, no storage: the loops that carry the
// steps out are tested against the real ones in the other engine files.
import { pad, toHex, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import type { BroadcastOutcome } from "../../src/chain/rpc-errors";
import type { TransactionReceipt } from "../../src/chain/transactions";
import { TRANSFER_TOPIC } from "../../src/chain/transfer-logs";
import type { EngineConfig } from "../../src/services/engine/config";
import { nextSendStep, type SendObservation } from "../../src/services/engine/sequencer-steps";
import type { SentHash, TxKind, WatchedTransaction } from "../../src/services/engine/types";
import { storedRecord } from "../../src/services/engine/watched-record";
import { nextPollStep, type FoundReceipt, type PollObservation } from "../../src/services/engine/watcher-steps";

const config: EngineConfig = { pollMs: 200, maxPollMs: 1_000, bumpAfterBlocks: 3, failAfterMs: 60 * 60_000, gasBufferPercent: 20, maxBumps: 10 };
const NOW = 1_900_000_000_000;
const MINUTE = 60_000;
const DROP = "0x00000000000000000000000000000000000d50b0";
const fees = { maxFeePerGas: "2000000000", maxPriorityFeePerGas: "1000000000" };
const original: SentHash = { hash: `0x${"01".repeat(32)}`, purpose: "original", ...fees };
const filler: SentHash = { hash: `0x${"f1".repeat(32)}`, purpose: "fill", ...fees };

/** A transfer at nonce 5, sent half an hour ago: past the window in which the sequencer is asked before a resend, within the hour's deadline. */
function record(overrides: Partial<WatchedTransaction> = {}): WatchedTransaction {
  return {
    state: "sent",
    id: "tx-1",
    projectId: "p-1",
    chainId: 1868,
    walletAddress: "0x000000000000000000000000000000000000a11e",
    walletIndex: 7,
    kind: "transfer",
    subjectId: null,
    nonce: 5,
    to: "0x000000000000000000000000000000000000dEaD",
    data: "0x",
    value: "1",
    gas: "21000",
    ...fees,
    raw: "0x02aa",
    hashes: [original],
    createdAt: NOW - 30 * MINUTE,
    pendingSinceBlock: null,
    polls: 0,
    bumps: 0,
    ...overrides,
  } as WatchedTransaction;
}
const filling = (overrides: Partial<WatchedTransaction> = {}) => record({ state: "filling", hashes: [original, filler], ...overrides });
const claim = (overrides: Partial<WatchedTransaction> = {}) =>
  record({ kind: "claim" as TxKind, subjectId: "drop-1", to: DROP, reservation: { contract: DROP, quantity: 2, firstTokenId: 8 }, ...overrides });

function mintLog(tokenId: number) {
  return {
    address: DROP,
    topics: [TRANSFER_TOPIC, pad("0x0"), pad("0x000000000000000000000000000000000000beef"), pad(toHex(tokenId))] as Hex[],
    data: "0x" as Hex,
    blockNumber: 10n,
    blockHash: `0x${"bb".repeat(32)}` as Hex,
    logIndex: tokenId,
    transactionHash: original.hash as Hex,
    transactionIndex: 0,
    removed: false,
  };
}
const receipt = (status: "success" | "reverted", logs: ReturnType<typeof mintLog>[] = []) =>
  ({ status, logs, transactionHash: original.hash, blockNumber: 10n, gasUsed: 21_000n, effectiveGasPrice: 1n }) as unknown as TransactionReceipt;
const found = (status: "success" | "reverted", sent: SentHash = original, logs: ReturnType<typeof mintLog>[] = []): FoundReceipt => ({ receipt: receipt(status, logs), sent });

/** Everything up to the pool check observed: no receipt, the nonce next in line, block 100. */
const unmined = (more: Partial<PollObservation> = {}): PollObservation => ({ now: NOW, cancelRequested: false, receipt: null, minedCount: 5, head: 100, ...more });

interface PollRow {
  name: string;
  record: WatchedTransaction;
  seen: PollObservation;
  step: Record<string, unknown>;
}

const pollRows: PollRow[] = [
  { name: "a settled record: nothing", record: record({ state: "settled" }), seen: { now: NOW, cancelRequested: false }, step: { type: "none" } },
  { name: "first, the receipt", record: record(), seen: { now: NOW, cancelRequested: false }, step: { type: "look", question: "receipt" } },
  {
    name: "a successful receipt settles confirmed",
    record: record(),
    seen: { now: NOW, cancelRequested: false, receipt: found("success") },
    step: { type: "settle", settlement: { status: "confirmed" }, record: { state: "sent", polls: 1 } },
  },
  { name: "a failed receipt settles reverted", record: record(), seen: { now: NOW, cancelRequested: false, receipt: found("reverted") }, step: { type: "settle", settlement: { status: "reverted" } } },
  {
    name: "the filler's receipt settles failed, past the deadline",
    record: filling(),
    seen: { now: NOW, cancelRequested: false, receipt: found("success", filler) },
    step: { type: "settle", settlement: { status: "failed", reason: expect.stringMatching(/^not mined before the deadline/) } },
  },
  {
    name: "the filler's receipt of a cancelled one settles failed, cancelled",
    record: filling(),
    seen: { now: NOW, cancelRequested: true, receipt: found("success", filler) },
    step: { type: "settle", settlement: { status: "failed", reason: expect.stringMatching(/^cancelled at the project's request/) }, record: { cancelled: true } },
  },
  {
    name: "a claim's receipt re-anchors its token ids one past the highest minted",
    record: claim(),
    seen: { now: NOW, cancelRequested: false, receipt: found("success", original, [mintLog(8), mintLog(9)]) },
    step: { type: "settle", settlement: { status: "confirmed" }, tokenIds: { contract: DROP, nextTokenIdAfter: 10 } },
  },
  {
    name: "a claim that minted nothing (no drop contract) settles reverted and gives its ids back",
    record: claim(),
    seen: { now: NOW, cancelRequested: false, receipt: found("success") },
    step: { type: "settle", settlement: { status: "reverted", reason: expect.stringMatching(/^nothing was minted/) }, tokenIds: { contract: DROP, nextTokenIdAfter: null } },
  },
  {
    name: "a buy's settlement releases its order, confirmed or not",
    record: record({ kind: "buy", subjectId: "0xorder" }),
    seen: { now: NOW, cancelRequested: false, receipt: found("reverted") },
    step: { type: "settle", releaseSubject: { confirmed: false } },
  },
  { name: "no receipt: the wallet's mined count", record: record(), seen: { now: NOW, cancelRequested: false, receipt: null }, step: { type: "look", question: "minedCount" } },
  {
    name: "the nonce mined: the receipt once more",
    record: record(),
    seen: { now: NOW, cancelRequested: false, receipt: null, minedCount: 6 },
    step: { type: "look", question: "receiptOnceMined" },
  },
  {
    name: "the nonce mined by another transaction, first seen: wait",
    record: record(),
    seen: { now: NOW, cancelRequested: false, receipt: null, minedCount: 6, receiptOnceMined: null },
    step: { type: "wait", record: { nonceTakenSince: NOW }, pollInMs: 200 },
  },
  {
    name: "the nonce taken for 5 s: settles failed",
    record: record({ nonceTakenSince: NOW - 5_000 }),
    seen: { now: NOW, cancelRequested: false, receipt: null, minedCount: 6, receiptOnceMined: null },
    step: { type: "settle", settlement: { status: "failed", reason: "its nonce was used by another transaction from the project wallet" } },
  },
  {
    name: "the nonce free again: forgets when it looked taken, reads the head",
    record: record({ nonceTakenSince: NOW - 1_000 }),
    seen: { now: NOW, cancelRequested: false, receipt: null, minedCount: 5 },
    step: { type: "look", question: "head" },
  },
  { name: "then whether the node has the bytes", record: record(), seen: unmined(), step: { type: "look", question: "nodeKnowsLatest" } },
  {
    name: "first seen pending: remembers the block",
    record: record(),
    seen: unmined({ nodeKnowsLatest: true }),
    step: { type: "wait", record: { pendingSinceBlock: 100, polls: 1 }, pollInMs: 200 },
  },
  {
    name: "pending 3 blocks and next in line: re-priced, its hash shown on the row",
    record: record({ pendingSinceBlock: 97 }),
    seen: unmined({ nodeKnowsLatest: true }),
    step: { type: "reprice", showHashOnRow: true, record: { pendingSinceBlock: 97 } },
  },
  {
    name: "pending 2 blocks: waits",
    record: record({ pendingSinceBlock: 98 }),
    seen: unmined({ nodeKnowsLatest: true }),
    step: { type: "wait" },
  },
  {
    name: "pending 3 blocks behind an unmined nonce: asks whether it is priced out",
    record: record({ pendingSinceBlock: 97 }),
    seen: unmined({ minedCount: 4, nodeKnowsLatest: true }),
    step: { type: "look", question: "pricedOut" },
  },
  { name: "behind an unmined nonce and still priced in: waits", record: record({ pendingSinceBlock: 97 }), seen: unmined({ minedCount: 4, nodeKnowsLatest: true, pricedOut: false }), step: { type: "wait" } },
  { name: "behind an unmined nonce and priced out: re-priced", record: record({ pendingSinceBlock: 97 }), seen: unmined({ minedCount: 4, nodeKnowsLatest: true, pricedOut: true }), step: { type: "reprice" } },
  {
    name: "no re-pricing budget left: waits",
    record: record({ pendingSinceBlock: 97, bumps: 10 }),
    seen: unmined({ nodeKnowsLatest: true }),
    step: { type: "wait" },
  },
  {
    name: "a filler past its budget: re-priced only when priced out, its hash kept off the row",
    record: filling({ pendingSinceBlock: 97, bumps: 10 }),
    seen: unmined({ nodeKnowsLatest: true, pricedOut: true }),
    step: { type: "reprice", showHashOnRow: false },
  },
  {
    name: "past the deadline: fills the nonce",
    record: record({ createdAt: NOW - 61 * MINUTE }),
    seen: unmined({ nodeKnowsLatest: true }),
    step: { type: "fill", record: { state: "sent" }, pollInMs: 200 },
  },
  {
    name: "past the deadline and lost by the node: fills without sending the call again",
    record: record({ createdAt: NOW - 61 * MINUTE, pendingSinceBlock: 90 }),
    seen: unmined({ nodeKnowsLatest: false, rowAnnounces: true }),
    step: { type: "fill", record: { pendingSinceBlock: null } },
  },
  {
    name: "cancelled while young: asks the sequencer first",
    record: record({ createdAt: NOW - MINUTE }),
    seen: unmined({ cancelRequested: true }),
    step: { type: "look", question: "sequencerAllowsResend" },
  },
  {
    name: "cancelled while the sequencer may take it back: waits, and polls again soon",
    record: record({ createdAt: NOW - MINUTE, polls: 20 }),
    seen: unmined({ cancelRequested: true, sequencerAllowsResend: false, nodeKnowsLatest: true }),
    step: { type: "wait", pollInMs: 200, record: { cancelled: true } },
  },
  {
    name: "cancelled and the sequencer done: checks the record is still this attempt",
    record: record({ createdAt: NOW - MINUTE }),
    seen: unmined({ cancelRequested: true, sequencerAllowsResend: true }),
    step: { type: "look", question: "recordCurrent" },
  },
  {
    name: "cancelled, but the record was re-signed meanwhile: stops",
    record: record({ createdAt: NOW - MINUTE }),
    seen: unmined({ cancelRequested: true, sequencerAllowsResend: true, recordCurrent: false }),
    step: { type: "superseded" },
  },
  {
    name: "cancelled and free to go: fills the nonce",
    record: record({ createdAt: NOW - MINUTE }),
    seen: unmined({ cancelRequested: true, sequencerAllowsResend: true, recordCurrent: true, nodeKnowsLatest: true }),
    step: { type: "fill" },
  },
  {
    name: "cancelled once filling: polls as usual",
    record: filling({ polls: 20, pendingSinceBlock: 99 }),
    seen: unmined({ cancelRequested: true, nodeKnowsLatest: true }),
    step: { type: "wait", pollInMs: 1_000 },
  },
  { name: "lost by the node: is its row there?", record: record(), seen: unmined({ nodeKnowsLatest: false }), step: { type: "look", question: "rowAnnounces" } },
  {
    name: "lost, announced, old: the record is still this attempt?",
    record: record(),
    seen: unmined({ nodeKnowsLatest: false, rowAnnounces: true }),
    step: { type: "look", question: "recordCurrent" },
  },
  {
    name: "lost, announced, young: the sequencer is asked first",
    record: record({ createdAt: NOW - MINUTE }),
    seen: unmined({ nodeKnowsLatest: false, rowAnnounces: true }),
    step: { type: "look", question: "sequencerAllowsResend" },
  },
  {
    name: "lost, young, and the sequencer may still take it back: not sent",
    record: record({ createdAt: NOW - MINUTE, pendingSinceBlock: 90 }),
    seen: unmined({ nodeKnowsLatest: false, rowAnnounces: true, sequencerAllowsResend: false }),
    step: { type: "wait", record: { pendingSinceBlock: null } },
  },
  { name: "lost and free to go: the same bytes again", record: record(), seen: unmined({ nodeKnowsLatest: false, rowAnnounces: true, recordCurrent: true }), step: { type: "resend" } },
  {
    name: "sent again and taken: waits for the pool",
    record: record({ pendingSinceBlock: 90 }),
    seen: unmined({ nodeKnowsLatest: false, rowAnnounces: true, recordCurrent: true, resent: "accepted" }),
    step: { type: "wait", record: { pendingSinceBlock: null } },
  },
  {
    name: "sent again and refused as underpriced: re-priced at once",
    record: record(),
    seen: unmined({ nodeKnowsLatest: false, rowAnnounces: true, recordCurrent: true, resent: "underpriced" }),
    step: { type: "reprice" },
  },
  {
    name: "a filler the node lost: sent again without asking anyone",
    record: filling(),
    seen: unmined({ nodeKnowsLatest: false }),
    step: { type: "resend" },
  },
  {
    name: "no row within the grace period: waits, sends nothing",
    record: record({ createdAt: NOW - 30_000 }),
    seen: unmined({ nodeKnowsLatest: false, rowAnnounces: false }),
    step: { type: "wait" },
  },
  {
    name: "no row past the grace period: fills the nonce it holds",
    record: record({ createdAt: NOW - 2 * MINUTE }),
    seen: unmined({ nodeKnowsLatest: false, rowAnnounces: false }),
    step: { type: "fill" },
  },
];

describe("a record stored with two flags instead of a state", () => {
  it("reads as sent, filling or settled", () => {
    const { state: _state, ...flagless } = record();
    const flagged = (filling: boolean, settled: boolean) => storedRecord({ ...flagless, filling, settled }).state;
    expect([flagged(false, false), flagged(true, false), flagged(true, true), flagged(false, true)]).toEqual(["sent", "filling", "settled", "settled"]);
    expect(storedRecord({ ...flagless, filling: true, settled: false })).toEqual({ ...flagless, state: "filling" });
  });
});

describe("nextPollStep", () => {
  it.each(pollRows)("$name", ({ record, seen, step }) => {
    expect(nextPollStep(record, seen, config)).toMatchObject(step);
  });

  it("asks for nothing it was already told and changes neither argument", () => {
    const stored = record({ pendingSinceBlock: 97 });
    const seen = unmined({ nodeKnowsLatest: true });
    const before = JSON.stringify([stored, seen]);
    expect(nextPollStep(stored, seen, config)).toEqual(nextPollStep(stored, seen, config));
    expect(JSON.stringify([stored, seen])).toBe(before);
  });
});

interface SendRow {
  name: string;
  seen: SendObservation;
  step: Record<string, unknown>;
}

const tx = { transactionId: "tx-1", chainId: 1868, walletAddress: "0x000000000000000000000000000000000000A11E" };
const stored = (broadcast?: BroadcastOutcome, more: Partial<SendObservation> = {}): SendObservation => ({
  resigns: 0,
  signed: true,
  stored: "stored",
  storedAfterMs: 50,
  ...(broadcast ? { broadcast } : {}),
  ...more,
});
const refusal = (code: string, message: string | RegExp) => ({ ok: false, error: { code, message: typeof message === "string" ? message : expect.stringMatching(message) } });

const sendRows: SendRow[] = [
  { name: "first, the signature", seen: { resigns: 0 }, step: { type: "sign" } },
  { name: "a first signature that failed: gives everything back", seen: { resigns: 0, signed: false }, step: { type: "give-back", refusal: refusal("internal_error", /could not be signed/) } },
  { name: "a re-sign that failed: takes the earlier attempt back", seen: { resigns: 1, signed: false }, step: { type: "withdraw", nonceFate: "unused" } },
  { name: "signed: stores record and row", seen: { resigns: 0, signed: true }, step: { type: "store" } },
  {
    name: "a write failed: withdrawn, retryable",
    seen: { resigns: 0, signed: true, stored: "failed", storedAfterMs: 10 },
    step: { type: "withdraw", nonceFate: "unused", refusal: refusal("internal_error", "the transaction could not be stored, so it was not sent; the request can be retried") },
  },
  {
    name: "a re-sign whose first attempt settled meanwhile: withdrawn",
    seen: { resigns: 1, signed: true, stored: "row-settled", storedAfterMs: 10 },
    step: { type: "withdraw", refusal: refusal("chain_unavailable", /was taken by a transaction sent outside the service/) },
  },
  { name: "stored: broadcast", seen: stored(), step: { type: "broadcast" } },
  { name: "stored after more than 30 s: left to the watcher", seen: stored(undefined, { storedAfterMs: 30_001 }), step: { type: "accept" } },
  ...(["accepted", "transient", "underpriced", "nonce_held"] as const).map((kind) => ({ name: `broadcast ${kind}: sent`, seen: stored({ kind }), step: { type: "accept" } })),
  { name: "nonce too low: resync", seen: stored({ kind: "nonce_too_low" }), step: { type: "resync" } },
  { name: "resynced: a new attempt", seen: stored({ kind: "nonce_too_low" }, { resynced: true }), step: { type: "resign" } },
  {
    name: "resync unanswered: withdrawn, its nonce spent",
    seen: stored({ kind: "nonce_too_low" }, { resynced: false }),
    step: { type: "withdraw", nonceFate: "spent", refusal: refusal("chain_unavailable", "chain 1868 RPC is unreachable; transaction tx-1 was not sent") },
  },
  {
    name: "nonce too low a fourth time: withdrawn without a resync",
    seen: stored({ kind: "nonce_too_low" }, { resigns: 3 }),
    step: { type: "withdraw", nonceFate: "spent", refusal: refusal("chain_unavailable", "the node rejected the transaction: nonce too low; transaction tx-1 was not sent") },
  },
  {
    name: "insufficient funds: withdrawn, naming the wallet",
    seen: stored({ kind: "insufficient_funds" }),
    step: { type: "withdraw", nonceFate: "unused", refusal: refusal("insufficient_funds", `the project wallet ${tx.walletAddress} cannot pay for this transaction`) },
  },
  {
    name: "rejected: withdrawn with the node's reason",
    seen: stored({ kind: "rejected", reason: "intrinsic gas too low" }),
    step: { type: "withdraw", nonceFate: "unused", refusal: refusal("chain_unavailable", "the node rejected the transaction: intrinsic gas too low") },
  },
];

describe("nextSendStep", () => {
  it.each(sendRows)("$name", ({ seen, step }) => {
    expect(nextSendStep(tx, seen)).toMatchObject(step);
  });
});
