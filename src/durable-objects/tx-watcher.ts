import { DurableObject } from "cloudflare:workers";
// The engine settles (and refuses) transactions by their kind: the kinds must be registered here.
import "../services/transaction-kinds";
import { serviceContext } from "../services/context";
import { engineConfig } from "../services/engine/config";
import type { WatchedTransaction } from "../services/engine/types";
import { storedRecord } from "../services/engine/watched-record";
import { attemptOf, pollOnce, SupersededRecord, type RecordStore } from "../services/engine/watcher";
import { nextPollIn, pollDelay } from "../services/engine/watcher-steps";
import { logWarn } from "../lib/log";
import { sequencerStub } from "../services/durable-object-stubs";

const RECORD_KEY = "tx";
const CANCEL_KEY = "cancel";
const SETTLED_RECORD_KEPT_MS = 24 * 60 * 60 * 1000;
/** A cancellation taken before its record arrived waits this long for it, then the object empties. */
const UNTRACKED_CANCEL_KEPT_MS = 10 * 60 * 1000;

/** `settled`: the record this object holds is final; only a re-signed attempt on its way (D1 still pending) would take the request. */
export type CancelOutcome = "taken" | "settled";

/**
 * Follows one transaction until it settles (logic in services/engine/watcher.ts and
 * watcher-steps.ts). Storage: `tx` = the WatchedTransaction (its state, signed bytes of the
 * latest hash, every hash it has had); `cancel` = when the project asked to cancel it, kept apart from `tx` so a
 * poll under way cannot write it away. The alarm survives restarts; each run reloads state and
 * polls only while the transaction is pending; a day after it settled, the alarm empties the object.
 */
export class TxWatcher extends DurableObject<Env> {
  /** When this instance last took a cancellation (a poll under way when it came polls again at once). */
  private cancelTakenAt = 0;

  /** Stores (or replaces, after a nonce re-sign) the record and starts polling. */
  async track(record: WatchedTransaction): Promise<void> {
    // Both writes in one implicit transaction: a reset cannot keep the record without its alarm.
    void this.ctx.storage.put(RECORD_KEY, record);
    await this.ctx.storage.setAlarm(Date.now() + pollDelay(engineConfig(this.env), 0));
  }

  /** The transaction was never accepted by the node: nothing to watch. */
  async forget(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  async record(): Promise<WatchedTransaction | null> {
    const stored = await this.ctx.storage.get<Parameters<typeof storedRecord>[0]>(RECORD_KEY);
    return stored ? storedRecord(stored) : null;
  }

  /**
   * Asks the next poll, due at once, to take the nonce with a 0-value self-transfer. Whichever of
   * the two the chain mines first decides the outcome: `failed`, or the transaction itself. The
   * request stays for every later attempt (a nonce re-sign replaces the record, not this key); one
   * taken before the record arrived (it is written beside the row) waits for it.
   */
  async requestCancel(): Promise<CancelOutcome> {
    const keys = await this.ctx.storage.get([RECORD_KEY, CANCEL_KEY]);
    const stored = recordIn(keys);
    // Only the first request moves the alarm: a client repeating it must not make the watcher poll without pause.
    if (!keys.has(CANCEL_KEY)) {
      void this.ctx.storage.put(CANCEL_KEY, Date.now());
      if (stored && stored.state !== "settled") {
        this.cancelTakenAt = Date.now();
        await this.ctx.storage.setAlarm(Date.now());
      } else if (!stored) {
        await this.ctx.storage.setAlarm(Date.now() + UNTRACKED_CANCEL_KEPT_MS);
      }
    }
    return stored?.state === "settled" ? "settled" : "taken";
  }

  override async alarm(): Promise<void> {
    const startedAt = Date.now();
    // One read for both keys: every poll of every transaction makes it.
    const keys = await this.ctx.storage.get([RECORD_KEY, CANCEL_KEY]);
    const stored = recordIn(keys);
    // Nothing to watch: at most a cancellation whose record never came.
    if (!stored) return this.ctx.storage.deleteAll();
    // D1 holds the outcome; the record is kept a day for inspection, then the object is emptied.
    if (stored.state === "settled") return this.ctx.storage.deleteAll();
    const sequencer = sequencerStub(this.env, stored.chainId, stored.walletAddress);
    const attempt = attemptOf(stored);
    const store: RecordStore = {
      save: (record) => this.saveAttempt(attempt, record),
      isCurrent: async () => (await this.current(attempt)) !== null,
      cancelRequested: keys.has(CANCEL_KEY),
    };
    try {
      const { record, nextPollInMs } = await pollOnce(serviceContext(this.env), stored, sequencer, store);
      await this.saveAttempt(attempt, record);
      await this.ctx.storage.setAlarm(Date.now() + (nextPollInMs === null ? SETTLED_RECORD_KEPT_MS : this.pollAgainIn(nextPollInMs, startedAt)));
    } catch (error) {
      // The sequencer replaced or withdrew the record meanwhile: its own track/forget set the alarm.
      if (error instanceof SupersededRecord) return;
      // An RPC or D1 hiccup: keep what is stored (a re-signed version included) and try again later.
      logWarn(this.env, { where: "TxWatcher.alarm", transactionId: stored.id }, error);
      const current = await this.current(attempt);
      if (!current) return;
      await this.ctx.storage.put(RECORD_KEY, { ...current, polls: current.polls + 1 });
      // A cancellation still to be acted on is looked at again as soon as a young transaction would be.
      const delayMs = nextPollIn(engineConfig(this.env), { ...current, polls: current.polls + 1 }, keys.has(CANCEL_KEY));
      await this.ctx.storage.setAlarm(Date.now() + this.pollAgainIn(delayMs, startedAt));
    }
  }

  /** A cancellation that came during a poll set an alarm for now, which the poll's own must not postpone. */
  private pollAgainIn(delayMs: number, pollStartedAt: number): number {
    return this.cancelTakenAt >= pollStartedAt ? 0 : delayMs;
  }

  /**
   * Writes `record` only while the stored record is the same attempt: a poll that was under way
   * when `track` replaced the record (or `forget` removed it) must not write the old one back.
   * The read and the write run with no other event in between (input gate).
   */
  private async saveAttempt(attempt: string, record: WatchedTransaction): Promise<void> {
    if (!(await this.current(attempt))) throw new SupersededRecord(`transaction ${record.id} was re-signed or withdrawn during the poll`);
    await this.ctx.storage.put(RECORD_KEY, record);
  }

  /** The stored record while it is still `attempt`, else null. */
  private async current(attempt: string): Promise<WatchedTransaction | null> {
    const stored = await this.record();
    return stored && attemptOf(stored) === attempt ? stored : null;
  }
}

/** The record among keys read together (in the current shape). */
function recordIn(keys: Map<string, unknown>): WatchedTransaction | undefined {
  const stored = keys.get(RECORD_KEY) as Parameters<typeof storedRecord>[0] | undefined;
  return stored && storedRecord(stored);
}
