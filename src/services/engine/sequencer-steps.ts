// What the sequencer's request does next with a transaction it has allocated a nonce for,
// decided from what it has done and observed so far: one pure function, nextSendStep. The
// request signs, stores (the watcher's record and the D1 row, before anything goes out),
// broadcasts, and then answers: sent, or withdrawn with the caller's error. After "nonce too low"
// it re-signs at a new nonce, a few times at most. SequencerCore.sendAttempts (sequencer.ts)
// carries the steps out; from the moment the record is stored, the watcher (watcher-steps.ts)
// owns the transaction too.
import type { BroadcastOutcome } from "../../chain/rpc-errors";
import { failure } from "./submit-failures";
import type { SubmitFailure } from "./types";
import { UNANNOUNCED_GRACE_MS } from "./watcher-steps";

/** Half the watcher's grace for a missing row, so the two never both act on one nonce. */
export const SLOW_PERSIST_MS = UNANNOUNCED_GRACE_MS / 2;
export const MAX_NONCE_RESYNCS = 3;

/** What happens to a withdrawn transaction's nonce: reused, or (taken by a mined transaction) moved past. */
export type NonceFate = "unused" | "spent";

/** What the request has observed of the current attempt; a field is absent until a step produced it. */
export interface SendObservation {
  /** Re-signs at a new nonce so far (0: the first attempt). */
  resigns: number;
  /** Signing succeeded (false: it threw, and nothing left the service). */
  signed?: boolean;
  /** Both writes went through (`stored`), one failed (`failed`), or the row of an earlier attempt is already settled (`row-settled`). */
  stored?: "stored" | "failed" | "row-settled";
  /** How long after the request's start the writes were done (ms). */
  storedAfterMs?: number;
  broadcast?: BroadcastOutcome;
  /** The nonces moved past the chain's pending count (false: the chain did not answer). */
  resynced?: boolean;
}

export type SendStep =
  | { type: "sign" }
  | { type: "store" }
  | { type: "broadcast" }
  | { type: "resync" }
  /** Answer with the stored transaction: it is out, or the watcher will send it. */
  | { type: "accept" }
  /** Give back this nonce (and token ids), take the next one, and start a new attempt. */
  | { type: "resign" }
  /** Nothing was stored: give back the hold, token ids and nonce, and answer `refusal`. */
  | { type: "give-back"; refusal: SubmitFailure }
  /** Take back the stored record and row, then the hold, token ids and nonce, and answer `refusal`. */
  | { type: "withdraw"; refusal: SubmitFailure; nonceFate: NonceFate };

export interface SendingTransaction {
  transactionId: string;
  chainId: number;
  walletAddress: string;
}

const withdraw = (refusal: SubmitFailure, nonceFate: NonceFate = "unused"): SendStep => ({ type: "withdraw", refusal, nonceFate });

/** The next step of the sequencer's request for `tx`. Pure. */
export function nextSendStep(tx: SendingTransaction, seen: SendObservation): SendStep {
  if (seen.signed === undefined) return { type: "sign" };
  if (!seen.signed) {
    const refusal = failure("internal_error", `transaction ${tx.transactionId} could not be signed, so it was not sent`);
    // Nothing of a first attempt was stored; a re-sign's earlier record must be taken back too.
    return seen.resigns === 0 ? { type: "give-back", refusal } : withdraw(refusal);
  }

  // Half a record must not go out: a watcher without a row sends what nobody was told about; a
  // row without a watcher stays pending forever.
  if (seen.stored === undefined) return { type: "store" };
  if (seen.stored === "failed") return withdraw(failure("internal_error", "the transaction could not be stored, so it was not sent; the request can be retried"));
  if (seen.stored === "row-settled") {
    // A re-sign after "nonce too low" whose first attempt was settled (failed: its nonce went to
    // another transaction) while this one was being signed: the record is final.
    return withdraw(failure("chain_unavailable", `the nonce of transaction ${tx.transactionId} was taken by a transaction sent outside the service, so it is marked failed`));
  }
  // A persist this slow may have let the watcher decide the row is never coming and fill the
  // nonce (watcher-steps.ts, after UNANNOUNCED_GRACE_MS): its bytes are the watcher's to send now.
  if (seen.storedAfterMs !== undefined && seen.storedAfterMs > SLOW_PERSIST_MS) return { type: "accept" };

  if (seen.broadcast === undefined) return { type: "broadcast" };
  switch (seen.broadcast.kind) {
    // Only a definite rejection changes the outcome; anything else is the watcher's. A fee cap
    // under the next block's base fee is the watcher's too: it re-prices the same nonce once the
    // node refuses the bytes, which keeps later nonces from queueing behind a gap.
    case "accepted":
    case "transient":
    case "underpriced":
      return { type: "accept" };
    // Another transaction of the wallet holds the nonce in the pool (one sent outside the
    // service). Not final, so nothing is re-signed (the same request could go out twice) and the
    // nonce is not released (the next requests would meet the same refusal): the watcher keeps
    // these bytes, which take the nonce if that transaction is dropped, and settles the request
    // `failed` once it is mined. Later requests queue behind it (decision 83).
    case "nonce_held":
      return { type: "accept" };
    case "nonce_too_low": {
      // Someone else used this nonce (a transaction sent outside the service; broadcastRaw saw it
      // mined): nothing of ours can go out under it, and it is never handed out again.
      if (seen.resigns >= MAX_NONCE_RESYNCS) {
        return withdraw(failure("chain_unavailable", `the node rejected the transaction: nonce too low; transaction ${tx.transactionId} was not sent`), "spent");
      }
      if (seen.resynced === undefined) return { type: "resync" };
      if (!seen.resynced) return withdraw(failure("chain_unavailable", `chain ${tx.chainId} RPC is unreachable; transaction ${tx.transactionId} was not sent`), "spent");
      return { type: "resign" };
    }
    case "insufficient_funds":
      return withdraw(failure("insufficient_funds", `the project wallet ${tx.walletAddress} cannot pay for this transaction`));
    case "rejected":
      return withdraw(failure("chain_unavailable", `the node rejected the transaction: ${seen.broadcast.reason}`));
  }
}
