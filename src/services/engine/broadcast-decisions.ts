// Which transactions the sequencer may still take back (decision 100). Between storing a
// transaction and answering the request, the sequencer broadcasts it and, on a refusal, looks it
// up before withdrawing it; a watcher that sent the same bytes meanwhile could get them out after
// the lookups, and the request would be answered "not sent" for a transaction that is mined. A
// watcher therefore asks before it sends the bytes itself; memory only, as the sequencer's answer
// is: an object that restarts has no request in flight.

/** Long enough for a watcher's poll that was under way when its record was withdrawn to end. */
const WITHDRAWN_REMEMBERED_MS = 10 * 60 * 1000;
/** Withdrawals are rare; this bounds the memory if a node refuses everything for a while. */
const WITHDRAWN_REMEMBERED_MAX = 10_000;

export class BroadcastDecisions {
  private readonly deciding = new Set<string>();
  private readonly withdrawnAt = new Map<string, number>();

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
    this.forgetOld();
    this.withdrawnAt.set(transactionId, Date.now());
  }

  /** Whether a watcher may send this transaction's bytes itself. */
  mayRebroadcast(transactionId: string): boolean {
    this.forgetOld();
    return !this.deciding.has(transactionId) && !this.withdrawnAt.has(transactionId);
  }

  private forgetOld(): void {
    const cutoff = Date.now() - WITHDRAWN_REMEMBERED_MS;
    // A Map iterates in insertion order, so the oldest come first.
    for (const [id, at] of this.withdrawnAt) {
      if (at > cutoff && this.withdrawnAt.size < WITHDRAWN_REMEMBERED_MAX) break;
      this.withdrawnAt.delete(id);
    }
  }
}
