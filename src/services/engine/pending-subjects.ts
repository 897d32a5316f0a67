// A buy of one order, or an approval of one token, must not go out twice while the first is
// unmined: the second fill could only revert, the second approval only burn gas. The hold is
// taken in the sequencer's uninterrupted section, so it also sees a request that is still on its
// way, which a D1 lookup of pending rows could not (decisions 24 and 25).
// Storage (WalletSequencer): `pending:<kind>:<subject>` = PendingSubject, deleted when the
// watcher settles that transaction or the broadcast is definitely rejected. A confirmed
// approval is kept a minute longer: a request that read the allowance before it was mined
// would otherwise approve again.
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

const keyOf = (subject: SubjectRef) => `${PREFIX}${subject.kind}:${subject.subjectId!.toLowerCase()}`;

/** Whether a transaction of this kind and subject holds it until it settles. */
export const holdsSubject = (subject: SubjectRef) => HELD_KINDS.has(subject.kind) && subject.subjectId !== null;

/**
 * The holds live in memory, loaded once per object from storage and written through: two
 * storage reads of a key nobody wrote yet can both be in flight at once, so checking storage
 * and then writing it would let two requests through together.
 */
export class PendingSubjects {
  private held: Map<string, PendingSubject> | undefined;
  private loading: Promise<void> | undefined;

  constructor(
    private readonly storage: DurableObjectStorage,
    /** A pending hold older than this is ignored: only a crash between sign and persist leaves one. */
    private readonly staleAfterMs: number,
  ) {}

  /** Call (and await) before `holder`/`hold`; cheap once loaded. */
  load(): Promise<void> {
    if (this.held) return Promise.resolve();
    this.loading ??= this.storage.list<PendingSubject>({ prefix: PREFIX }).then((stored) => {
      this.held ??= new Map(stored);
    });
    return this.loading;
  }

  /** The transaction already holding this subject, if any. Synchronous, after `load`. */
  holder(subject: SubjectRef): string | null {
    if (!holdsSubject(subject)) return null;
    const held = this.loaded().get(keyOf(subject));
    if (!held) return null;
    const age = Date.now() - held.at;
    return age < (held.confirmed ? CONFIRMED_APPROVAL_MEMORY_MS : this.staleAfterMs) ? held.transactionId : null;
  }

  /** Synchronous on purpose: called right after `holder`, before anything can interleave. */
  hold(subject: SubjectRef, transactionId: string): void {
    if (holdsSubject(subject)) this.write(keyOf(subject), { transactionId, at: Date.now() });
  }

  /** Frees the subject if this transaction still holds it (a confirmed approval a minute later). */
  async release(subject: SubjectRef, transactionId: string, confirmed: boolean): Promise<void> {
    if (!holdsSubject(subject)) return;
    await this.load();
    const key = keyOf(subject);
    if (this.loaded().get(key)?.transactionId !== transactionId) return;
    if (confirmed && subject.kind === "approve") this.write(key, { transactionId, at: Date.now(), confirmed });
    else {
      this.loaded().delete(key);
      await this.storage.delete(key);
    }
  }

  private write(key: string, value: PendingSubject) {
    this.loaded().set(key, value);
    this.storage.put(key, value);
  }

  private loaded(): Map<string, PendingSubject> {
    if (!this.held) throw new Error("PendingSubjects used before load()");
    return this.held;
  }
}
