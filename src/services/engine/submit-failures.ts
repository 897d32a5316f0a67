// How the WalletSequencer answers a submit it will not (or cannot) send: the caller's error codes.
import { classifySimulationError, type RevertAbi } from "../../chain/rpc-errors";
import { reservedCount, type ReservationBook } from "./token-reservations";
import type { MintReservation, SubmitFailure } from "./types";

export const failure = (code: SubmitFailure["error"]["code"], message: string, details?: SubmitFailure["error"]["details"]): SubmitFailure => ({
  ok: false,
  error: { code, message, ...(details ? { details } : {}) },
});

/** `sold_out` when the drop's reserved tokens leave no room for this mint. */
export function shortfall(book: ReservationBook, request: MintReservation): SubmitFailure | null {
  const reserved = reservedCount(book);
  if (request.totalSupply === null || reserved + request.quantity <= request.totalSupply) return null;
  const left = Math.max(0, request.totalSupply - reserved);
  return failure("sold_out", `only ${left} of ${request.totalSupply} tokens are left`);
}

/** What a failed gas estimate means for the caller: its decoded revert, or why there was none. */
export function simulationFailure(error: unknown, revertAbi: RevertAbi | undefined): SubmitFailure {
  const failed = classifySimulationError(error, revertAbi);
  if (failed.kind === "insufficient_funds") return failure("insufficient_funds", "the project wallet cannot pay for this transaction");
  if (failed.kind === "unavailable") return failure("chain_unavailable", "the chain RPC did not answer the gas estimate");
  // The drop's own supply error is the API's sold_out, whatever our reservation count says.
  if (failed.errorName === "MaxSupplyExceeded") return failure("sold_out", "the drop has no supply left for this quantity");
  const name = failed.errorName ?? "execution reverted";
  const args = failed.args?.length ? `(${failed.args.map(String).join(", ")})` : "";
  return failure("execution_reverted", `the transaction would revert: ${name}${args}`, [{ path: "transaction", message: failed.message }]);
}

