// A buy of one order, or an approval of one token, must not go out twice while the first is
// unmined: the second fill could only revert, the second approval only burn gas. The hold is
// taken in the sequencer's uninterrupted section, so it also sees a request that is still on its
// way, which a D1 lookup of pending rows could not (decisions 24 and 25).
// Storage (WalletSequencer): `pending:<kind>:<subject>` = PendingSubject, deleted when the
// watcher settles that transaction or the broadcast is definitely rejected. A confirmed
// approval is kept a minute longer: a request that read the allowance before it was mined
// would otherwise approve again. Each release also deletes the holds nothing reads any more
// (confirmed approvals past their minute, pending holds past their staleness), which used to
// stay in storage and memory for good (decision 95).
import { StoredMap } from "./stored-map";
import type { TxKind } from "./types";

const HELD_KINDS: ReadonlySet<TxKind> = new Set(["buy", "approve"]);
const PREFIX = "pending:";
/** Far longer than a buy request takes from its allowance read to the sequencer. */
const CONFIRMED_APPROVAL_MEMORY_MS = 60_000;

interface PendingSubject {
  transactionId: string;
  /** When the hold was taken, or when its approval was confirmed. */
  at: number;
  confirmed?: boolean;
}

export interface SubjectRef {
  kind: TxKind;
  subjectId: string | null;
}

const keyOf = (subject: SubjectRef) => `${subject.kind}:${subject.subjectId!.toLowerCase()}`;

/** Whether a transaction of this kind and subject holds it until it settles. */
export const holdsSubject = (subject: SubjectRef) => HELD_KINDS.has(subject.kind) && subject.subjectId !== null;

/** The wallet's holds, in memory and written through (stored-map.ts says why). */
export class PendingSubjects {
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
    return this.expired(held) ? null : held.transactionId;
  }

  private expired(held: PendingSubject): boolean {
    return Date.now() - held.at >= (held.confirmed ? CONFIRMED_APPROVAL_MEMORY_MS : this.staleAfterMs);
  }

  /** Synchronous on purpose: called right after `holder`, before anything can interleave. */
  hold(subject: SubjectRef, transactionId: string): void {
    if (holdsSubject(subject)) this.held.set(keyOf(subject), { transactionId, at: Date.now() });
  }

  /** Frees the subject if this transaction still holds it (a confirmed approval a minute later). */
  async release(subject: SubjectRef, transactionId: string, confirmed: boolean): Promise<void> {
    if (!holdsSubject(subject)) return;
    await this.held.load();
    const key = keyOf(subject);
    if (this.held.get(key)?.transactionId === transactionId) {
      if (confirmed && subject.kind === "approve") this.held.set(key, { transactionId, at: Date.now(), confirmed });
      else await this.held.delete(key);
    }
    await this.held.deleteWhere((held) => this.expired(held));
  }
}
