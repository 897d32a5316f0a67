import { DurableObject } from "cloudflare:workers";
import { serviceContext } from "../services/context";
import { engineConfig } from "../services/engine/config";
import type { WatchedTransaction } from "../services/engine/types";
import { pollDelay, pollOnce } from "../services/engine/watcher";
import { logWarn } from "../lib/log";
import { sequencerStub } from "./stubs";

const RECORD_KEY = "tx";

/**
 * Follows one transaction until it settles (logic in services/engine/watcher.ts). Storage:
 * `tx` = the WatchedTransaction (signed bytes of the latest hash, every hash it has had,
 * bump/fill state). The alarm survives restarts; each run reloads state and exits unless the
 * transaction is still pending.
 */
export class TxWatcher extends DurableObject<Env> {
  /** Stores (or replaces, after a nonce re-sign) the record and starts polling. */
  async track(record: WatchedTransaction): Promise<void> {
    await this.ctx.storage.put(RECORD_KEY, record);
    await this.ctx.storage.setAlarm(Date.now() + pollDelay(engineConfig(this.env), 0));
  }

  /** The transaction was never accepted by the node: nothing to watch. */
  async forget(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  async record(): Promise<WatchedTransaction | null> {
    return (await this.ctx.storage.get<WatchedTransaction>(RECORD_KEY)) ?? null;
  }

  override async alarm(): Promise<void> {
    const stored = await this.ctx.storage.get<WatchedTransaction>(RECORD_KEY);
    if (!stored || stored.settled) return;
    const sequencer = sequencerStub(this.env, stored.chainId, stored.walletAddress);
    try {
      const { record, nextPollInMs } = await pollOnce(serviceContext(this.env), stored, sequencer);
      await this.ctx.storage.put(RECORD_KEY, record);
      if (nextPollInMs !== null) await this.ctx.storage.setAlarm(Date.now() + nextPollInMs);
    } catch (error) {
      // An RPC or D1 hiccup: keep the stored state and try again later.
      logWarn(this.env, { where: "TxWatcher.alarm", transactionId: stored.id }, error);
      await this.ctx.storage.put(RECORD_KEY, { ...stored, polls: stored.polls + 1 });
      await this.ctx.storage.setAlarm(Date.now() + pollDelay(engineConfig(this.env), stored.polls + 1));
    }
  }
}
