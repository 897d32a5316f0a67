// Which transactions the sequencer may still take back (decision 100). Between storing a
// transaction and answering the request, the sequencer broadcasts it and, on a refusal, looks it
// up before withdrawing it; a watcher that sent the same bytes meanwhile could get them out after
// the lookups, and the request would be answered "not sent" for a transaction that is mined. A
// watcher therefore asks before it sends the bytes itself; memory only, as the sequencer's answer
// is: an object that restarts has no request in flight.

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

export class BroadcastDecisions {
  private readonly deciding = new Set<string>();
  private readonly withdrawnAt = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The sequencer is about to store and broadcast this transaction. */
  open(transactionId: string): void {
    this.deciding.add(transactionId);
  }

  /** The request is answered: whatever was stored is the watcher's now. */
  close(transactionId: string): void {
    this.deciding.delete(transactionId);
  }

  /** The sequencer is taking the transaction back: its bytes must not go out. */
  withdraw(transactionId: string): void {
    this.forgetOld(1);
    this.withdrawnAt.set(transactionId, this.now());
  }

  /** The withdrawal could not be completed and the answer says the bytes may still go out. */
  unwithdraw(transactionId: string): void {
    this.withdrawnAt.delete(transactionId);
  }

  /** Whether a watcher may send this transaction's bytes itself. */
  mayRebroadcast(transactionId: string): boolean {
    this.forgetOld(0);
    return !this.deciding.has(transactionId) && !this.withdrawnAt.has(transactionId);
  }

  /** Drops expired withdrawals, and the oldest beyond the cap once `room` more are added. */
  private forgetOld(room: number): void {
    const cutoff = this.now() - WITHDRAWN_REMEMBERED_MS;
    // A Map iterates in insertion order, so the oldest come first.
    for (const [id, at] of this.withdrawnAt) {
      if (at > cutoff && this.withdrawnAt.size + room <= WITHDRAWN_REMEMBERED_MAX) break;
      this.withdrawnAt.delete(id);
    }
  }
}
