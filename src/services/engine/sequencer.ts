// The WalletSequencer's logic: the one place a wallet's nonces are handed out on a chain.
// Estimation and pricing run concurrently; nonce allocation, token-id reservation and signing
// happen without yielding in between, so nonces follow arrival order with no gaps. The record
// and its signed bytes are persisted (TxWatcher + D1) before the broadcast, and a broadcast
// never waits for the previous one.
import { broadcastRaw, estimateGas, quoteFees, signTransaction, transactionCount, type FeeQuote, type SignedTransaction } from "../../chain/transactions";
import { projectAccount, type ProjectAccount } from "../../chain/wallet";
import { getChain, type ChainConfig } from "../../lib/chains";
import { logError } from "../../lib/log";
import { serviceContext } from "../context";
import { transactionView } from "./transaction-view";
import { bumpedFees, engineConfig } from "./config";
import { revertAbiOf } from "./kinds";
import { SubjectHolds, type SubjectRef } from "./subject-holds";
import { WalletNonces, type NonceHolder } from "./wallet-nonces";
import { ResendGate } from "./resend-gate";
import { deleteUnsentRow, insertPendingRow } from "./transaction-rows";
import { ReservationBooks } from "./reservation-books";
import { failure, shortfall, simulationFailure } from "./submit-failures";
import { newWatchedRecord } from "./watched-record";
import { anchorAt, release, reserve, type ReservationBook } from "./token-reservations";
import { nextSendStep, type NonceFate, type SendObservation } from "./sequencer-steps";
import type { MintReservation, SubmitFailure, SubmitResult, TxIntent, UnminedTransaction, WatchedTransaction } from "./types";

export interface WatcherPort {
  track(record: WatchedTransaction): Promise<void>;
  forget(id: string): Promise<void>;
  record(): Promise<WatchedTransaction | null>;
}

const FEE_QUOTE_TTL_MS = 1_000;

const holderOf = (intent: TxIntent): NonceHolder => ({
  transactionId: intent.transactionId,
  kind: intent.kind,
  subjectId: intent.subjectId,
  contract: intent.reservation?.contract ?? null,
});

export class SequencerCore {
  private readonly nonces: WalletNonces;
  private readonly books: ReservationBooks;
  private fees: { quote: FeeQuote; at: number } | undefined;
  private readonly config: ReturnType<typeof engineConfig>;
  private readonly subjectHolds: SubjectHolds;
  private readonly resendGate: ResendGate;

  constructor(
    private readonly env: Env,
    storage: DurableObjectStorage,
    private readonly watcherFor: (transactionId: string) => WatcherPort,
    scheduleGapCheck: (at: number) => Promise<void>,
  ) {
    this.config = engineConfig(env);
    this.nonces = new WalletNonces(storage, scheduleGapCheck);
    this.books = new ReservationBooks(storage);
    this.subjectHolds = new SubjectHolds(storage, 2 * this.config.failAfterMs);
    this.resendGate = new ResendGate(storage);
  }

  /** Whether a watcher may send this transaction's bytes itself: not while this object may still take it back. */
  mayRebroadcast(transactionId: string): boolean {
    return this.resendGate.mayRebroadcast(transactionId);
  }

  /** Before a new instance serves anything: the gap check for what a restart cut off (WalletNonces.checkAfterRestart), and the withdrawals an earlier instance wrote down (decision 113). */
  async checkAfterRestart(): Promise<void> {
    await Promise.all([this.nonces.checkAfterRestart(), this.resendGate.load()]);
  }

  async submit(intent: TxIntent): Promise<SubmitResult> {
    const chain = getChain(this.env, intent.chainId);
    const account = projectAccount(this.env.WALLET_MNEMONIC, intent.walletIndex);
    if (account.address.toLowerCase() !== intent.walletAddress.toLowerCase()) {
      return failure("internal_error", "wallet index does not match the wallet address");
    }

    // Cheap checks first: a buy or approval already on its way, or a sold-out drop, answers as
    // such rather than as whatever the gas estimate says (the first fill may be mined already).
    await this.subjectHolds.load();
    const alreadyHeld = this.heldFailure(intent);
    if (alreadyHeld) return alreadyHeld;
    if (intent.reservation) {
      const soldOut = await this.supplyShortfall(intent.reservation);
      if (soldOut) return soldOut;
    }

    // 1. Simulate before any nonce is taken: a revert costs the caller a 422, not a gap.
    let gas: bigint;
    try {
      gas = await this.gasFor(chain.rpcUrl, intent);
    } catch (error) {
      return simulationFailure(error, revertAbiOf(intent.kind, intent));
    }
    let fees: FeeQuote;
    try {
      fees = await this.feeQuote(chain.rpcUrl);
    } catch {
      return failure("chain_unavailable", `chain ${intent.chainId} RPC is unreachable`);
    }
    try {
      await this.nonces.load(chain.rpcUrl, intent.walletAddress);
    } catch {
      return failure("chain_unavailable", `chain ${intent.chainId} RPC is unreachable`);
    }

    // 2. From these loads (books, holds and nonces all live in memory once loaded; decision 25)
    //    nothing else yields until the signature: nonces, reservations and pending subjects
    //    follow arrival order.
    const book = intent.reservation ? await this.book(intent.reservation) : undefined;
    const held = this.heldFailure(intent);
    if (held) return held;
    if (intent.reservation && book) {
      const soldOut = shortfall(book, intent.reservation);
      if (soldOut) return soldOut;
    }
    this.subjectHolds.hold(intent, intent.transactionId);
    const nonce = this.nonces.allocate(holderOf(intent));
    const firstTokenId = book && intent.reservation ? this.reserveIds(book, intent.reservation, nonce) : undefined;

    // Until the request is answered, the bytes are the sequencer's to send or take back (decision
    // 100). The call runs to its first await (the signature) without yielding.
    this.resendGate.answering(intent.transactionId);
    try {
      return await this.sendAttempts({ intent, chain, account, gas, fees, createdAt: new Date() }, nonce, firstTokenId);
    } finally {
      this.resendGate.answered(intent.transactionId);
    }
  }

  /**
   * Signs, stores and broadcasts the intent at `nonce`, re-signing at a new nonce after "nonce too
   * low": carries out the steps nextSendStep (sequencer-steps.ts) decides.
   */
  private async sendAttempts(
    { intent, chain, account, gas, fees, createdAt }: { intent: TxIntent; chain: ChainConfig; account: ProjectAccount; gas: bigint; fees: FeeQuote; createdAt: Date },
    nonce: number,
    firstTokenId: number | undefined,
  ): Promise<SubmitResult> {
    const tx = { transactionId: intent.transactionId, chainId: intent.chainId, walletAddress: account.address };
    let seen: SendObservation = { resigns: 0 };
    let signed: SignedTransaction | null = null;
    let accepted: SubmitResult | undefined;
    for (;;) {
      const step = nextSendStep(tx, seen);
      switch (step.type) {
        case "sign":
          signed = await this.sign(account, intent, nonce, gas, fees);
          seen.signed = signed !== null;
          break;
        case "store": {
          const record = newWatchedRecord({ intent, walletAddress: account.address, nonce, gas, fees, signed: signed!, firstTokenId, createdAt });
          const stored = await this.store(intent, record, { nonce, hash: signed!.hash, fromAddress: account.address, createdAt });
          seen.stored = stored.outcome;
          seen.storedAfterMs = Date.now() - createdAt.getTime();
          if (stored.row) accepted = { ok: true, transaction: transactionView(stored.row), announcePending: stored.announcePending, ...(firstTokenId !== undefined ? { firstTokenId } : {}) };
          break;
        }
        case "broadcast":
          seen.broadcast = await broadcastRaw(chain.rpcUrl, signed!.raw, { address: account.address, nonce });
          break;
        case "resync":
          seen.resynced = await this.resynced(chain.rpcUrl, intent);
          break;
        case "accept":
          return accepted!;
        case "resign":
          if (intent.reservation) await this.releaseIds(intent.reservation.contract, nonce);
          nonce = this.nonces.allocate(holderOf(intent));
          if (intent.reservation) firstTokenId = this.reserveIds(await this.book(intent.reservation), intent.reservation, nonce);
          seen = { resigns: seen.resigns + 1 };
          break;
        case "give-back":
          await this.giveBack(holderOf(intent), nonce, "unused");
          return step.refusal;
        case "withdraw":
          return this.withdrawn(intent, nonce, step.refusal, step.nonceFate);
      }
    }
  }

  /**
   * Persists the signed record before anything goes out: the watcher holds the raw bytes, D1 the
   * visible row. Both writes are waited for, failed or not, so a withdrawal never races a write
   * still under way. Once both are done the watcher holds the nonce: it sends, settles or fills it
   * whatever happens to this object.
   */
  private async store(intent: TxIntent, record: UnminedTransaction, sent: Parameters<typeof insertPendingRow>[2]) {
    const { db } = serviceContext(this.env);
    const [inserted, tracked] = await Promise.allSettled([insertPendingRow(db, intent, sent), this.watcherFor(intent.transactionId).track(record)]);
    if (inserted.status === "rejected" || tracked.status === "rejected") {
      for (const failed of [inserted, tracked].filter((write) => write.status === "rejected")) {
        logError(this.env, { where: "SequencerCore.submit", transactionId: intent.transactionId }, failed.reason);
      }
      return { outcome: "failed" as const };
    }
    this.nonces.stored(sent.nonce);
    const { row, announcePending } = inserted.value;
    return row ? { outcome: "stored" as const, row, announcePending } : { outcome: "row-settled" as const };
  }

  /** `conflict` naming the transaction that already holds this intent's subject, if one does. */
  private heldFailure(intent: TxIntent): SubmitFailure | null {
    const holder = this.subjectHolds.holder(intent);
    return holder ? { ...failure("conflict", `transaction ${holder} is still pending for this ${intent.kind}`), pendingTransactionId: holder } : null;
  }

  /**
   * Takes back a transaction the node never got or definitely refused: its watcher, row,
   * hold, token ids and nonce, then answers `refusal`. A watcher that could not be told to forget
   * keeps the nonce: it never sends bytes without a row and fills the nonce instead (decision 26).
   * If the row could not be deleted either, that watcher may still send them: the answer then
   * says the outcome is unknown, and the hold stays until the watcher settles. A row that could
   * not be deleted after a successful `forget` is left to the gap check, nonce and all.
   */
  private async withdrawn(intent: TxIntent, nonce: number, refusal: SubmitFailure, nonceFate: NonceFate = "unused"): Promise<SubmitFailure> {
    // Before the first await: from here on the watcher must not send these bytes (decision 100).
    this.resendGate.withdraw(intent.transactionId);
    const { db } = serviceContext(this.env);
    const [forgotten, deleted] = await Promise.allSettled([
      this.watcherFor(intent.transactionId).forget(intent.transactionId),
      deleteUnsentRow(db, intent.transactionId),
    ]);
    for (const failed of [forgotten, deleted].filter((outcome) => outcome.status === "rejected")) {
      logError(this.env, { where: "SequencerCore.withdraw", transactionId: intent.transactionId }, failed.reason);
    }
    if (forgotten.status === "rejected") {
      // Whether a watcher still holds the bytes is unknown (the call may have failed either side
      // of its work): the gap check asks it later, as for a transaction a restart cut off, and
      // either leaves the nonce to that watcher or takes everything back.
      await this.nonces.leaveToGapCheck(nonce, holderOf(intent));
      if (deleted.status === "rejected") {
        // With its row still there such a watcher would send the bytes: the outcome is unknown,
        // and the watcher, which holds the nonce, must not be kept from sending them.
        this.resendGate.unwithdraw(intent.transactionId);
        return { ...failure("internal_error", `transaction ${intent.transactionId} could not be taken back and may still be sent`), outcomeUnknown: true };
      }
      await this.subjectHolds.release(intent, intent.transactionId, false);
      return refusal;
    }
    if (deleted.status === "rejected" && !(await deleteUnsentRow(db, intent.transactionId).then(() => true, () => false))) {
      // A pending row with no watcher would show `pending` for good: the gap check deletes it
      // later (the watcher holds nothing) and only then releases the nonce and token ids.
      await this.nonces.leaveToGapCheck(nonce, holderOf(intent));
      await this.subjectHolds.release(intent, intent.transactionId, false);
      return refusal;
    }
    await this.giveBack(holderOf(intent), nonce, nonceFate);
    return refusal;
  }

  /**
   * What a transaction that will never be sent held: its subject hold, token ids and nonce. An
   * unused nonce goes back for reuse; one a mined transaction took is only moved past.
   */
  private async giveBack(holder: NonceHolder, nonce: number, nonceFate: NonceFate): Promise<void> {
    await this.subjectHolds.release(holder, holder.transactionId, false);
    if (holder.contract) await this.releaseIds(holder.contract, nonce);
    if (nonceFate === "spent") await this.nonces.spent(nonce);
    else await this.nonces.release(nonce);
  }

  /** Null when signing threw (logged): nothing has left the service then. */
  private async sign(account: ProjectAccount, intent: TxIntent, nonce: number, gas: bigint, fees: FeeQuote): Promise<SignedTransaction | null> {
    try {
      return await signTransaction(account, { chainId: intent.chainId, nonce, to: intent.to, data: intent.data, value: BigInt(intent.value), gas, ...fees });
    } catch (error) {
      logError(this.env, { where: "SequencerCore.sign", transactionId: intent.transactionId }, error);
      return null;
    }
  }

  /** Moves the nonces past the chain's pending count; false (logged) when the chain did not answer. */
  private resynced(rpcUrl: string, intent: TxIntent): Promise<boolean> {
    return this.nonces.resync(rpcUrl, intent.walletAddress).then(
      () => true,
      (error: unknown) => {
        logError(this.env, { where: "SequencerCore.resync", transactionId: intent.transactionId }, error);
        return false;
      },
    );
  }

  /** Re-signs a pending transaction's latest call with higher fees: same nonce, same call (the intended one, or the filler), new hash. */
  bump(record: UnminedTransaction): Promise<UnminedTransaction> {
    return this.resign(record, record.state === "filling" ? "fill" : "bump");
  }

  /**
   * Takes a transaction's nonce with a 0-value self-transfer priced to replace it. The filler gets
   * its own `maxBumps` budget: bumps of either count, so neither is re-priced without end.
   */
  async fill(record: UnminedTransaction): Promise<UnminedTransaction> {
    return { ...(await this.resign({ ...record, state: "filling" }, "fill")), bumps: 0 };
  }

  private async resign(record: UnminedTransaction, purpose: "bump" | "fill"): Promise<UnminedTransaction> {
    const chain = getChain(this.env, record.chainId);
    const fees = bumpedFees(
      { maxFeePerGas: BigInt(record.maxFeePerGas), maxPriorityFeePerGas: BigInt(record.maxPriorityFeePerGas) },
      await this.feeQuote(chain.rpcUrl, true),
    );
    const account = projectAccount(this.env.WALLET_MNEMONIC, record.walletIndex);
    const call =
      purpose === "fill"
        ? { to: account.address, data: "0x", value: 0n, gas: 21_000n }
        : { to: record.to, data: record.data, value: BigInt(record.value), gas: BigInt(record.gas) };
    const signed = await signTransaction(account, { chainId: record.chainId, nonce: record.nonce, ...call, ...fees });
    const priced = { maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString() };
    return {
      ...record,
      ...priced,
      raw: signed.raw,
      hashes: [...record.hashes, { hash: signed.hash, purpose, ...priced }],
      bumps: record.bumps + 1,
      pendingSinceBlock: null,
    };
  }

  /**
   * A reserved mint settled: confirmed with the chain's next id after it (re-anchors the
   * predictions), or not minted at all (null: reverted or its nonce filled), which gives its
   * supply back. Receipts stay authoritative for D1 either way.
   */
  async settleReservation(contract: string, nonce: number, nextTokenIdAfter: number | null): Promise<void> {
    await this.books.update(contract, (book) => (nextTokenIdAfter === null ? release(book, nonce) : anchorAt(book, nonce, nextTokenIdAfter)));
  }

  /** The transaction holding a subject settled: the next buy of that order may go (an approval of that token once a confirmed one is a minute old). */
  releaseSubject(subject: SubjectRef, transactionId: string, confirmed: boolean): Promise<void> {
    return this.subjectHolds.release(subject, transactionId, confirmed);
  }

  /**
   * Alarm: nonces nothing else will ever send are filled with 0-value self-transfers so later
   * transactions are not stuck: released ones nobody reused, and those of transactions a restart
   * cut off between handing out the nonce and storing its watcher. A filler is re-sent with a
   * fresh price on every check until its nonce is mined.
   */
  async checkGaps(walletIndex: number, chainId: number): Promise<void> {
    const chain = getChain(this.env, chainId);
    const account = projectAccount(this.env.WALLET_MNEMONIC, walletIndex);
    await this.nonces.load(chain.rpcUrl, account.address);
    await this.reclaimOrphans(chain.rpcUrl, account.address);
    const { released, filling } = this.nonces.takeForFilling();
    if (!released.length && !filling.length) return;
    // Released nonces move to `filling` once a filler for them went out, never back to reuse.
    const sent: number[] = [];
    try {
      const mined = await transactionCount(chain.rpcUrl, account.address, "latest");
      const unmined = [...released, ...filling].filter((nonce) => nonce >= mined);
      if (unmined.length) {
        const fees = await this.feeQuote(chain.rpcUrl, true);
        for (const nonce of unmined) {
          const signed = await signTransaction(account, { chainId, nonce, to: account.address, data: "0x", value: 0n, gas: 21_000n, ...fees });
          await broadcastRaw(chain.rpcUrl, signed.raw, { address: account.address, nonce });
          sent.push(nonce);
        }
      }
      await this.nonces.afterFilling(unmined, []);
    } catch (error) {
      // Offer again only the released nonces no filler was sent for; keep watching the rest.
      await this.nonces.afterFilling(
        [...new Set([...filling, ...sent])],
        released.filter((nonce) => !sent.includes(nonce)),
      );
      throw error;
    }
  }

  /**
   * A restart between handing out a nonce and storing its watcher leaves the nonce with nobody to
   * send or fill it. Nothing was broadcast without a watcher, so a transaction whose watcher holds
   * no record is taken back (its row deleted, hold and token ids freed) and its nonce released.
   * But a watcher also empties itself a day after its transaction settled, and the in-flight
   * entry of one of the last transactions before a quiet day can outlive it: a nonce the chain
   * has mined is never released. Its transaction settled (its row is no longer pending), or, if
   * the row is still pending, it was never sent and another transaction took the nonce.
   */
  private async reclaimOrphans(rpcUrl: string, walletAddress: string): Promise<void> {
    const orphans = await this.nonces.orphans();
    if (!orphans.length) return;
    const db = serviceContext(this.env).db;
    // Read once, and only for an orphan whose watcher holds nothing (most have their record).
    let mined: number | undefined;
    for (const orphan of orphans) {
      const record = await this.watcherFor(orphan.transactionId).record();
      if (record?.nonce === orphan.nonce) {
        this.nonces.stored(orphan.nonce);
        continue;
      }
      mined ??= await transactionCount(rpcUrl, walletAddress, "latest");
      const unsent = await deleteUnsentRow(db, orphan.transactionId);
      if (orphan.nonce >= mined) await this.giveBack(orphan, orphan.nonce, "unused");
      else if (unsent) await this.giveBack(orphan, orphan.nonce, "spent");
      else this.nonces.stored(orphan.nonce);
    }
    await this.nonces.persist();
  }

  private book(request: MintReservation): Promise<ReservationBook> {
    return this.books.forMint(request.contract, request.initialNextTokenId);
  }

  private reserveIds(book: ReservationBook, request: MintReservation, nonce: number): number {
    return this.books.change(request.contract, book, (open) => reserve(open, nonce, request.quantity));
  }

  private releaseIds(contract: string, nonce: number): Promise<void> {
    return this.books.update(contract, (book) => release(book, nonce));
  }

  private async supplyShortfall(request: MintReservation): Promise<SubmitFailure | null> {
    return shortfall(await this.book(request), request);
  }

  private async gasFor(rpcUrl: string, intent: TxIntent): Promise<bigint> {
    if (intent.gasLimit) return BigInt(intent.gasLimit);
    const estimate = await estimateGas(rpcUrl, { from: intent.walletAddress, to: intent.to, data: intent.data, value: BigInt(intent.value) });
    // State can change between estimate and inclusion (an earlier pending mint warms or cools slots).
    return (estimate * BigInt(100 + this.config.gasBufferPercent)) / 100n;
  }

  private async feeQuote(rpcUrl: string, fresh = false): Promise<FeeQuote> {
    if (!fresh && this.fees && Date.now() - this.fees.at < FEE_QUOTE_TTL_MS) return this.fees.quote;
    const quote = await quoteFees(rpcUrl);
    this.fees = { quote, at: Date.now() };
    return quote;
  }
}
