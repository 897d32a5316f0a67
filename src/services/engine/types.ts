import type { ErrorCode, ErrorDetail } from "../../lib/errors";
import type { TxKind } from "./kinds";
import type { TransactionView } from "./transaction-view";

export type { TxKind } from "./kinds";

/** Token ids a mint will use, handed out in nonce order so predictions match the chain. */
export interface MintReservation {
  contract: string;
  quantity: number;
  /** null = unlimited. */
  totalSupply: number | null;
  /** D1's drops.next_token_id, used the first time the sequencer sees this contract. */
  initialNextTokenId: number;
}

/** What a service asks the WalletSequencer to send. */
export interface TxIntent {
  transactionId: string;
  jobId: string;
  projectId: string;
  walletIndex: number;
  walletAddress: string;
  chainId: number;
  kind: TxKind;
  subjectId: string | null;
  to: string;
  data: string;
  /** Decimal string (wei). */
  value: string;
  metadata: string | null;
  /** The kind's payload (`payloadJson` of its definition, engine/kinds.ts), read back when it settles. */
  payload: string | null;
  /** Skip estimation (the target contract is not deployed yet, or an approval it needs is not mined yet); decimal string. */
  gasLimit?: string;
  reservation?: MintReservation;
}

export interface SubmitFailure {
  ok: false;
  error: { code: ErrorCode; message: string; details?: ErrorDetail[] };
  /** With `conflict`: the unmined transaction of the same kind and subject (services/engine/pending-subjects.ts). */
  pendingTransactionId?: string;
  /** The transaction could not be taken back and may still go out (its watcher and row survive). */
  outcomeUnknown?: true;
}

/** `announcePending`: the project had an endpoint for `transaction.pending` when the row was written. */
export type SubmitResult = { ok: true; transaction: TransactionView; announcePending: boolean; firstTokenId?: number } | SubmitFailure;

export interface SentHash {
  hash: string;
  /** original/bump: the intended transaction; fill: the 0-value self-transfer taking its nonce. */
  purpose: "original" | "bump" | "fill";
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
}

/** Everything a TxWatcher needs to follow, rebroadcast, bump or fill one transaction. */
export interface WatchedTransaction {
  id: string;
  projectId: string;
  chainId: number;
  walletAddress: string;
  walletIndex: number;
  kind: TxKind;
  subjectId: string | null;
  nonce: number;
  to: string;
  data: string;
  value: string;
  gas: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
  /** Signed bytes of the latest hash, rebroadcast as-is when the node loses them. */
  raw: string;
  hashes: SentHash[];
  reservation?: { contract: string; quantity: number; firstTokenId: number };
  createdAt: number;
  /** Block number when the latest bytes were first seen pending; bumps count from here. */
  pendingSinceBlock: number | null;
  polls: number;
  /** When the wallet's nonce count was first seen past this nonce with no receipt of ours. */
  nonceTakenSince?: number;
  bumps: number;
  filling: boolean;
  /** The project asked to cancel it: a filler that takes the nonce ends it as cancelled, not as past its deadline. */
  cancelled?: true;
  settled: boolean;
}
