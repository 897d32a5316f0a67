// The record a TxWatcher keeps for a transaction the WalletSequencer just signed: everything it
// needs to rebroadcast the same bytes, re-price the same call, or fill the nonce.
import type { FeeQuote, SignedTransaction } from "../../chain/transactions";
import type { TxIntent, WatchedTransaction } from "./types";

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

export function newWatchedRecord({ intent, walletAddress, nonce, gas, fees, signed, firstTokenId, createdAt }: SignedAttempt): WatchedTransaction {
  const priced = { maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString() };
  return {
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
    filling: false,
    settled: false,
  };
}
