// One wallet's nonces on one chain, as its WalletSequencer hands them out. Storage: `nonce` =
// NonceState. The state lives in memory once loaded and is written through on every change.
import { transactionCount } from "../../chain/transactions";

interface NonceState {
  next: number;
  /** Nonces given back by definite rejections, reused first so no gap stays behind. */
  released: number[];
}

const NONCE_KEY = "nonce";
/** How long a released nonce may wait for a new request before a filler takes it. */
export const RELEASED_NONCE_GRACE_MS = 5_000;

export class WalletNonces {
  private state: NonceState | undefined;
  private loading: Promise<void> | undefined;

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
      }
      this.state = state;
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

  /** Synchronous on purpose: no other request may interleave between reading and bumping `next`. */
  allocate(): number {
    const state = this.loaded();
    const reused = state.released.length ? Math.min(...state.released) : undefined;
    const nonce = reused ?? state.next++;
    if (reused !== undefined) state.released = state.released.filter((n) => n !== reused);
    this.storage.put(NONCE_KEY, state);
    return nonce;
  }

  /** A nonce that will never be broadcast: the last one is simply taken back, others wait for reuse or a filler. */
  async release(nonce: number): Promise<void> {
    const state = this.loaded();
    if (nonce === state.next - 1) state.next -= 1;
    else {
      state.released.push(nonce);
      await this.scheduleGapCheck(Date.now() + RELEASED_NONCE_GRACE_MS);
    }
    await this.storage.put(NONCE_KEY, state);
  }

  /**
   * Released nonces nobody reused, for the gap-filling alarm. After a restart it adopts the stored
   * state only when there is something to fill; otherwise the next `load` still checks the chain.
   */
  async released(): Promise<number[]> {
    const state = this.state ?? (await this.storage.get<NonceState>(NONCE_KEY));
    if (!state?.released.length) return [];
    this.state = state;
    return [...state.released];
  }

  /** The alarm dealt with these (filled, or already mined); any others get another look later. */
  async resolved(nonces: number[]): Promise<void> {
    const state = this.loaded();
    state.released = state.released.filter((n) => !nonces.includes(n));
    await this.storage.put(NONCE_KEY, state);
    if (state.released.length) await this.scheduleGapCheck(Date.now() + RELEASED_NONCE_GRACE_MS);
  }

  private loaded(): NonceState {
    if (!this.state) throw new Error("WalletNonces used before load()");
    return this.state;
  }
}
