// The record a TxWatcher keeps for a transaction the WalletSequencer just signed: everything it
// needs to rebroadcast the same bytes, re-price the same call, or fill the nonce.
import type { FeeQuote, SignedTransaction } from "../../chain/transactions";
import type { TxIntent, UnminedTransaction, WatchedTransaction } from "./types";

export interface SignedAttempt {
  intent: TxIntent;
  walletAddress: string;
  nonce: number;
  gas: bigint;
  fees: FeeQuote;
  signed: SignedTransaction;
  firstTokenId: number | undefined;
  createdAt: Date;
}

export function newWatchedRecord({ intent, walletAddress, nonce, gas, fees, signed, firstTokenId, createdAt }: SignedAttempt): UnminedTransaction {
  const priced = { maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString() };
  return {
    state: "sent",
    id: intent.transactionId,
    projectId: intent.projectId,
    chainId: intent.chainId,
    walletAddress,
    walletIndex: intent.walletIndex,
    kind: intent.kind,
    subjectId: intent.subjectId,
    nonce,
    to: intent.to,
    data: intent.data,
    value: intent.value,
    gas: gas.toString(),
    ...priced,
    raw: signed.raw,
    hashes: [{ hash: signed.hash, purpose: "original", ...priced }],
    ...(intent.reservation && firstTokenId !== undefined
      ? { reservation: { contract: intent.reservation.contract, quantity: intent.reservation.quantity, firstTokenId } }
      : {}),
    createdAt: createdAt.getTime(),
    pendingSinceBlock: null,
    polls: 0,
    bumps: 0,
  };
}

/** A record as an earlier version stored it: two flags where `state` is now. */
type FlaggedRecord = Omit<UnminedTransaction, "state"> & { filling: boolean; settled: boolean };

/** The record a TxWatcher's storage holds, in the current shape whichever version wrote it. */
export function storedRecord(stored: WatchedTransaction | FlaggedRecord): WatchedTransaction {
  if ("state" in stored) return stored;
  const { filling, settled, ...record } = stored;
  return { ...record, state: settled ? "settled" : filling ? "filling" : "sent" };
}
