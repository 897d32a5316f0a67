// The resend gate: which transactions the sequencer may still take back, so that a watcher must
// not send their bytes itself (decision 100). Between storing a
// transaction and answering the request, the sequencer broadcasts it and, on a refusal, looks it
// up before withdrawing it; a watcher that sent the same bytes meanwhile could get them out after
// the lookups, and the request would be answered "not sent" for a transaction that is mined. A
// watcher therefore asks before it sends the bytes itself. Requests being answered live in memory
// only (an object that restarts has none in flight); withdrawals are written down too, so an
// object restarted after one still says no (decision 113).
import { deleteKeys } from "./stored-map";

/** Long enough for a watcher's poll that was under way when its record was withdrawn to end. */
export const WITHDRAWN_REMEMBERED_MS = 10 * 60 * 1000;
/**
 * A withdrawal happens while its request runs, which ends well within 10 minutes of the record's
 * creation, and is remembered 10 minutes more: an older record needs no answer, so a stuck
 * nonce's rebroadcast never waits on a busy sequencer.
 */
export const ASK_BEFORE_REBROADCAST_MS = 2 * WITHDRAWN_REMEMBERED_MS;
/** Withdrawals are rare; this bounds the memory if a node refuses everything for a while. */
const WITHDRAWN_REMEMBERED_MAX = 10_000;
/** Storage: `withdrawn:<transaction id>` = when it was withdrawn (ms). */
export const WITHDRAWN_PREFIX = "withdrawn:";

type WithdrawalStorage = Pick<DurableObjectStorage, "put" | "delete" | "list">;

export class ResendGate {
  private readonly beingAnswered = new Set<string>();
  private readonly withdrawnAt = new Map<string, number>();

  /** `storage` null: memory only (a withdrawal is then forgotten by a restart). */
  constructor(
    private readonly storage: WithdrawalStorage | null,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes over the withdrawals an earlier instance wrote down (before the object serves anything). */
  async load(): Promise<void> {
    if (!this.storage) return;
    const stored = await this.storage.list<number>({ prefix: WITHDRAWN_PREFIX });
    // Oldest first, as withdraw() inserts them, so forgetOld() can stop at the first young one.
    for (const [key, at] of [...stored].sort((a, b) => a[1] - b[1])) this.withdrawnAt.set(key.slice(WITHDRAWN_PREFIX.length), at);
    this.forgetOld(0);
  }

  /** The sequencer is about to store and broadcast this transaction: until `answered`, its bytes are the sequencer's. */
  answering(transactionId: string): void {
    this.beingAnswered.add(transactionId);
  }

  /** The request is answered: whatever was stored is the watcher's now. */
  answered(transactionId: string): void {
    this.beingAnswered.delete(transactionId);
  }

  /**
   * The sequencer is taking the transaction back: its bytes must not go out. Synchronous: the
   * write is under way before the caller's next await, and the object's output gate holds the
   * request's answer until it is stored.
   */
  withdraw(transactionId: string): void {
    this.forgetOld(1);
    const at = this.now();
    this.withdrawnAt.set(transactionId, at);
    void this.storage?.put(WITHDRAWN_PREFIX + transactionId, at);
  }

  /** The withdrawal could not be completed and the answer says the bytes may still go out. */
  unwithdraw(transactionId: string): void {
    this.withdrawnAt.delete(transactionId);
    void this.storage?.delete(WITHDRAWN_PREFIX + transactionId);
  }

  /** Whether a watcher may send this transaction's bytes itself. */
  mayRebroadcast(transactionId: string): boolean {
    this.forgetOld(0);
    return !this.beingAnswered.has(transactionId) && !this.withdrawnAt.has(transactionId);
  }

  /** Drops expired withdrawals, and the oldest beyond the cap once `room` more are added. */
  private forgetOld(room: number): void {
    const cutoff = this.now() - WITHDRAWN_REMEMBERED_MS;
    const forgotten: string[] = [];
    // A Map iterates in insertion order, so the oldest come first.
    for (const [id, at] of this.withdrawnAt) {
      if (at > cutoff && this.withdrawnAt.size + room <= WITHDRAWN_REMEMBERED_MAX) break;
      this.withdrawnAt.delete(id);
      forgotten.push(WITHDRAWN_PREFIX + id);
    }
    if (this.storage && forgotten.length) void deleteKeys(this.storage, forgotten);
  }
}
