import { DurableObject } from "cloudflare:workers";
// The engine settles (and refuses) transactions by their kind: the kinds must be registered here.
import "../services/transaction-kinds";
import { SequencerCore } from "../services/engine/sequencer";
import type { SubjectRef } from "../services/engine/subject-holds";
import type { SubmitResult, TxIntent, UnminedTransaction } from "../services/engine/types";
import { logError } from "../lib/log";
import { watcherStub } from "../services/durable-object-stubs";

interface Identity {
  chainId: number;
  walletIndex: number;
}

/**
 * Allocates nonces for one wallet on one chain, signs and broadcasts (logic in
 * services/engine/sequencer.ts). Storage: `nonce` {next, released[], inflight[], filling[]} (services/engine/wallet-nonces.ts), `reservation:<contract>`
 * {anchor, unconfirmed} (services/engine/reservation-books.ts), `identity` {chainId,
 * walletIndex} for the gap-filling alarm, `pending:<kind>:<subject>`
 * (services/engine/subject-holds.ts), `withdrawn:<transaction id>` (services/engine/resend-gate.ts).
 */
export class WalletSequencer extends DurableObject<Env> {
  private readonly core: SequencerCore;
  private identityStored = false;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.core = new SequencerCore(
      env,
      ctx.storage,
      (transactionId) => watcherStub(env, transactionId),
      (at) => this.scheduleGapCheck(at),
    );
    void ctx.blockConcurrencyWhile(() => this.core.checkAfterRestart());
  }

  async submit(intent: TxIntent): Promise<SubmitResult> {
    // An object serves one wallet on one chain: its identity is written once per instance.
    if (!this.identityStored) {
      this.ctx.storage.put<Identity>("identity", { chainId: intent.chainId, walletIndex: intent.walletIndex });
      this.identityStored = true;
    }
    return this.core.submit(intent);
  }

  mayRebroadcast(transactionId: string): boolean {
    return this.core.mayRebroadcast(transactionId);
  }

  bump(record: UnminedTransaction): Promise<UnminedTransaction> {
    return this.core.bump(record);
  }

  fill(record: UnminedTransaction): Promise<UnminedTransaction> {
    return this.core.fill(record);
  }

  settleReservation(contract: string, nonce: number, nextTokenIdAfter: number | null): Promise<void> {
    return this.core.settleReservation(contract, nonce, nextTokenIdAfter);
  }

  releaseSubject(subject: SubjectRef, transactionId: string, confirmed: boolean): Promise<void> {
    return this.core.releaseSubject(subject, transactionId, confirmed);
  }

  /** An earlier check already set stays: a later request must not postpone it. */
  private async scheduleGapCheck(at: number): Promise<void> {
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  override async alarm(): Promise<void> {
    const identity = await this.ctx.storage.get<Identity>("identity");
    if (!identity) return;
    try {
      await this.core.checkGaps(identity.walletIndex, identity.chainId);
    } catch (error) {
      logError(this.env, { where: "WalletSequencer.alarm" }, error);
      await this.scheduleGapCheck(Date.now() + 5_000);
    }
  }
}
