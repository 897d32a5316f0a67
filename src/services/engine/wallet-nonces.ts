// One wallet's nonces on one chain, as its WalletSequencer hands them out. Storage: `nonce` =
// NonceState. The state lives in memory once loaded and is written through on every change.
import { transactionCount } from "../../chain/transactions";
import type { TxKind } from "./types";

/** A nonce handed out whose transaction is not yet stored with its watcher. */
export interface InflightNonce {
  nonce: number;
  transactionId: string;
  kind: TxKind;
  subjectId: string | null;
  /** The drop whose token ids the transaction reserved, if any. */
  contract: string | null;
  at: number;
}

export type NonceHolder = Omit<InflightNonce, "nonce" | "at">;

interface NonceState {
  next: number;
  /** Nonces given back by definite rejections, reused first so no gap stays behind. */
  released: number[];
  /**
   * Handed out, not yet stored with a watcher. An entry a restarted object finds was cut off by
   * the restart: nothing will ever send or fill its nonce unless the gap check does (decision 30).
   */
  inflight?: InflightNonce[];
  /** Released nonces a 0-value filler was sent for: watched by the gap check until mined. */
  filling?: number[];
}

const NONCE_KEY = "nonce";
/** How long a released nonce may wait for a new request before a filler takes it. */
const RELEASED_NONCE_GRACE_MS = 5_000;
/** Past this age an in-flight entry left by an earlier instance can have no write still under way. */
export const ORPHANED_NONCE_AGE_MS = 30_000;

/** The entries other than `nonce`'s. */
const without = (inflight: InflightNonce[] | undefined, nonce: number) => (inflight ?? []).filter((entry) => entry.nonce !== nonce);
/** When the oldest of `entries` is due for the gap check. */
const dueAt = (entries: InflightNonce[]) => Math.min(...entries.map((entry) => entry.at)) + ORPHANED_NONCE_AGE_MS;

export class WalletNonces {
  private state: NonceState | undefined;
  private loading: Promise<void> | undefined;
  /** In-flight entries this instance found in storage: cut off by a restart, not its own. */
  private orphaned = new Set<number>();

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly scheduleGapCheck: (at: number) => Promise<void>,
  ) {}

  /** Stored state, moved forward to the chain's pending count if that is ahead (first use after a restart). */
  load(rpcUrl: string, walletAddress: string): Promise<void> {
    if (this.state) return Promise.resolve();
    this.loading ??= (async () => {
      const [stored, pending] = await Promise.all([this.storage.get<NonceState>(NONCE_KEY), transactionCount(rpcUrl, walletAddress, "pending")]);
      const state: NonceState = stored ?? { next: pending, released: [] };
      if (pending > state.next) {
        state.next = pending;
        state.released = [];
        state.filling = [];
      }
      this.adopt(state);
      await this.storage.put(NONCE_KEY, state);
    })().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  /** After "nonce too low": someone else used nonces; move past the chain's pending count. */
  async resync(rpcUrl: string, walletAddress: string): Promise<void> {
    const pending = await transactionCount(rpcUrl, walletAddress, "pending");
    const state = this.state ?? { next: pending, released: [] };
    state.released = state.released.filter((n) => n >= pending);
    state.next = Math.max(state.next, pending);
    this.state = state;
    await this.storage.put(NONCE_KEY, state);
  }

  /**
   * Synchronous on purpose: no other request may interleave between reading and bumping `next`.
   * The nonce is written down as in flight in the same write, until `stored` or `release`.
   */
  allocate(holder: NonceHolder): number {
    const state = this.loaded();
    const reused = state.released.length ? Math.min(...state.released) : undefined;
    const nonce = reused ?? state.next++;
    if (reused !== undefined) state.released = state.released.filter((n) => n !== reused);
    state.inflight = [...without(state.inflight, nonce), { ...holder, nonce, at: Date.now() }];
    this.storage.put(NONCE_KEY, state);
    return nonce;
  }

  /**
   * Its transaction is stored with a watcher, which from now on sends, settles or fills the nonce.
   * Struck off in memory only (the next write of the state carries it): an entry a reset leaves in
   * storage is found to have its watcher and dropped then, so a write per transaction is saved.
   */
  stored(nonce: number): void {
    const state = this.loaded();
    state.inflight = without(state.inflight, nonce);
    this.orphaned.delete(nonce);
  }

  /** Writes what `stored` struck off in memory. */
  async persist(): Promise<void> {
    await this.storage.put(NONCE_KEY, this.loaded());
  }

  /**
   * A withdrawal that did not fully go through: whether a watcher still holds the transaction is
   * unknown, so the nonce is handled as one a restart cut off (the gap check asks the watcher).
   */
  async leaveToGapCheck(nonce: number, holder: NonceHolder): Promise<void> {
    const state = this.loaded();
    const entry = state.inflight?.find((candidate) => candidate.nonce === nonce) ?? { ...holder, nonce, at: Date.now() };
    state.inflight = [...without(state.inflight, nonce), entry];
    this.orphaned.add(nonce);
    await this.storage.put(NONCE_KEY, state);
    await this.scheduleGapCheck(dueAt([entry]));
  }

  /** A nonce that will never be broadcast: the last one is simply taken back, others wait for reuse or a filler. */
  async release(nonce: number): Promise<void> {
    const state = this.loaded();
    this.stored(nonce);
    if (nonce === state.next - 1) state.next -= 1;
    else {
      state.released.push(nonce);
      await this.scheduleGapCheck(Date.now() + RELEASED_NONCE_GRACE_MS);
    }
    await this.storage.put(NONCE_KEY, state);
  }

  /** A nonce a mined transaction took (not ours): never handed out again, with no RPC needed. */
  async spent(nonce: number): Promise<void> {
    const state = this.loaded();
    this.stored(nonce);
    state.released = state.released.filter((n) => n !== nonce);
    state.next = Math.max(state.next, nonce + 1);
    await this.storage.put(NONCE_KEY, state);
  }

  /**
   * For the gap check (after `load`): released nonces nobody reused, taken out of `released` at
   * once so no request reuses one while its filler is being signed, and those already filling.
   */
  takeForFilling(): { released: number[]; filling: number[] } {
    const state = this.loaded();
    const released = state.released;
    state.released = [];
    this.storage.put(NONCE_KEY, state);
    return { released, filling: [...(state.filling ?? [])] };
  }

  /** After a gap check: nonces with a filler out, and nonces to offer for reuse again. */
  async afterFilling(filling: number[], released: number[]): Promise<void> {
    const state = this.loaded();
    state.filling = filling;
    state.released = [...new Set([...state.released, ...released])];
    await this.storage.put(NONCE_KEY, state);
    if (filling.length || state.released.length) await this.scheduleGapCheck(Date.now() + RELEASED_NONCE_GRACE_MS);
  }

  /**
   * In-flight entries a restart cut off (after `load`) that are old enough that no write of theirs
   * can still be under way; a gap check is set for the younger ones.
   */
  async orphans(): Promise<InflightNonce[]> {
    const now = Date.now();
    const cutOff = (this.loaded().inflight ?? []).filter((entry) => this.orphaned.has(entry.nonce));
    const waiting = cutOff.filter((entry) => now - entry.at < ORPHANED_NONCE_AGE_MS);
    if (waiting.length) await this.scheduleGapCheck(dueAt(waiting));
    return cutOff.filter((entry) => now - entry.at >= ORPHANED_NONCE_AGE_MS);
  }

  /**
   * A fresh object (after a reset) sets a gap check for what the reset cut off, without waiting
   * for a request: the wallet's later transactions may be queued behind those nonces.
   */
  async checkAfterRestart(): Promise<void> {
    const inflight = (await this.storage.get<NonceState>(NONCE_KEY))?.inflight ?? [];
    if (inflight.length) await this.scheduleGapCheck(dueAt(inflight));
  }

  /**
   * Takes over stored state; any in-flight entry in it belongs to an instance that is gone (the
   * object's constructor already set the gap check for them: checkAfterRestart).
   */
  private adopt(state: NonceState): void {
    this.state = state;
    this.orphaned = new Set((state.inflight ?? []).map((entry) => entry.nonce));
  }

  private loaded(): NonceState {
    if (!this.state) throw new Error("WalletNonces used before load()");
    return this.state;
  }
}
