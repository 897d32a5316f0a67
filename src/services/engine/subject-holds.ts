// A second transaction of the same subject must not go out while the first is unmined when its
// kind says so (engine/kinds.ts, `holdsSubject`): a second fill of one order could only revert, a
// second approval of one token only burn gas. The hold is taken in the sequencer's uninterrupted
// section, so it also sees a request that is still on its way, which a D1 lookup of pending rows
// could not (decisions 24 and 25).
// Storage (WalletSequencer): `pending:<kind>:<subject>` = PendingSubject, deleted when the
// watcher settles that transaction or the broadcast is definitely rejected. A confirmed one is
// kept as long as its kind's `keptAfterConfirmedMs` (an approval: a minute). Each release also
// deletes the holds nothing reads any more (confirmed ones past that time, pending holds past
// their staleness), so none stays in storage or memory for good (decision 95).
import { heldAfterConfirmedMs, holdsSubject, type TxKind } from "./kinds";
import { StoredMap } from "./stored-map";

const PREFIX = "pending:";

interface PendingSubject {
  transactionId: string;
  /** When the hold was taken, or when its transaction was confirmed. */
  at: number;
  confirmed?: boolean;
}

export interface SubjectRef {
  kind: TxKind;
  subjectId: string | null;
}

const keyOf = (subject: SubjectRef) => `${subject.kind}:${subject.subjectId!.toLowerCase()}`;
const kindOfKey = (key: string) => key.slice(0, key.indexOf(":")) as TxKind;

/** The wallet's holds, in memory and written through (stored-map.ts says why). */
export class SubjectHolds {
  private readonly held: StoredMap<PendingSubject>;

  constructor(
    storage: DurableObjectStorage,
    /** A pending hold older than this is ignored: only a crash between sign and persist leaves one. */
    private readonly staleAfterMs: number,
  ) {
    this.held = new StoredMap(storage, PREFIX);
  }

  /** Call (and await) before `holder`/`hold`; cheap once loaded. */
  load(): Promise<void> {
    return this.held.load();
  }

  /** The transaction already holding this subject, if any. Synchronous, after `load`. */
  holder(subject: SubjectRef): string | null {
    if (!holdsSubject(subject)) return null;
    const held = this.held.get(keyOf(subject));
    if (!held) return null;
    return this.expired(held, subject.kind) ? null : held.transactionId;
  }

  private expired(held: PendingSubject, kind: TxKind): boolean {
    return Date.now() - held.at >= (held.confirmed ? heldAfterConfirmedMs(kind) : this.staleAfterMs);
  }

  /** Synchronous on purpose: called right after `holder`, before anything can interleave. */
  hold(subject: SubjectRef, transactionId: string): void {
    if (holdsSubject(subject)) this.held.set(keyOf(subject), { transactionId, at: Date.now() });
  }

  /** Frees the subject if this transaction still holds it (a confirmed one once its kind's time is up). */
  async release(subject: SubjectRef, transactionId: string, confirmed: boolean): Promise<void> {
    if (!holdsSubject(subject)) return;
    await this.held.load();
    const key = keyOf(subject);
    if (this.held.get(key)?.transactionId === transactionId) {
      if (confirmed && heldAfterConfirmedMs(subject.kind) > 0) this.held.set(key, { transactionId, at: Date.now(), confirmed });
      else await this.held.delete(key);
    }
    await this.held.deleteWhere((held, key) => this.expired(held, kindOfKey(key)));
  }
}
