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
  /** With `conflict`: the unmined transaction of the same kind and subject (services/engine/subject-holds.ts). */
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

/** What a TxWatcher keeps of one transaction in every state. */
interface WatchedBase {
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
  polls: number;
  /** Re-pricings of the latest call (a filler starts again at 0). */
  bumps: number;
  /** Block number when the latest bytes were first seen pending; re-pricing counts from here. */
  pendingSinceBlock: number | null;
  /** When the wallet's nonce count was first seen past this nonce with no receipt of ours. */
  nonceTakenSince?: number;
  /** The project asked to cancel it: a filler that takes the nonce ends it as cancelled, not as past its deadline. */
  cancelled?: true;
}

/**
 * Everything a TxWatcher needs to follow, rebroadcast, re-price or fill one transaction, by
 * state (watcher-steps.ts decides every move between them; docs/architecture.md draws them):
 * - `sent`: the latest bytes are the intended call, the original or a re-priced copy;
 * - `filling`: the latest bytes are a 0-value transfer from the wallet to itself that takes the
 *   nonce (past the deadline, cancelled by the project, or never announced by a row);
 * - `settled`: final; the D1 row holds the outcome, this record is kept a day.
 */
export type WatchedTransaction = (WatchedBase & { state: "sent" }) | (WatchedBase & { state: "filling" }) | (WatchedBase & { state: "settled" });

/** A record a poll still acts on: its nonce is not mined. */
export type UnminedTransaction = Extract<WatchedTransaction, { state: "sent" | "filling" }>;
