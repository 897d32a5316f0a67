// Classification of chain errors by viem error type (never by message text in our code; viem
// itself maps node messages to its typed node errors).
import {
  BaseError,
  CallExecutionError,
  ContractFunctionExecutionError,
  ContractFunctionRevertedError,
  ContractFunctionZeroDataError,
  FeeCapTooLowError,
  HttpRequestError,
  InsufficientFundsError,
  IntrinsicGasTooLowError,
  NonceTooHighError,
  NonceTooLowError,
  RpcRequestError,
  TimeoutError,
  TipAboveFeeCapError,
  decodeErrorResult,
  type Abi,
  type Hex,
} from "viem";
import { getNodeError } from "viem/utils";
import { NOT_FINAL_RPC_CODES } from "./busy-node";

export type BroadcastOutcome =
  | { kind: "accepted" }
  /** The node will never take this transaction as signed. */
  | { kind: "nonce_too_low" }
  /**
   * Refused while the node's pending count has passed the nonce: another transaction of the
   * wallet holds it in the pool (for example "replacement transaction underpriced" for one sent
   * outside the service). Only `broadcastRaw` gives this, once the count shows it; never the classifier.
   */
  | { kind: "nonce_held" }
  | { kind: "insufficient_funds" }
  | { kind: "underpriced" }
  | { kind: "rejected"; reason: string }
  /** No definite answer (network, timeout, 5xx, node-internal error): retry the same bytes. */
  | { kind: "transient" };

/** Turns whatever `eth_sendRawTransaction` threw into what the engine should do next. */
export function classifyBroadcastError(error: unknown): BroadcastOutcome {
  if (!(error instanceof BaseError)) return { kind: "transient" };
  if (error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError)) return { kind: "transient" };
  const nodeError = getNodeError(error, {});
  if (nodeError.walk((e) => e instanceof NonceTooLowError)) return { kind: "nonce_too_low" };
  if (nodeError.walk((e) => e instanceof InsufficientFundsError)) return { kind: "insufficient_funds" };
  if (nodeError.walk((e) => e instanceof FeeCapTooLowError || e instanceof TipAboveFeeCapError)) return { kind: "underpriced" };
  if (nodeError.walk((e) => e instanceof NonceTooHighError)) return { kind: "transient" };
  if (nodeError.walk((e) => e instanceof IntrinsicGasTooLowError)) return { kind: "rejected", reason: "intrinsic gas too low" };
  const rpc = error.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
  // A JSON-RPC error object is the node's answer, unless its code says it could not serve the call.
  if (rpc && !NOT_FINAL_RPC_CODES.has(rpc.code)) return { kind: "rejected", reason: rpc.shortMessage };
  return { kind: "transient" };
}

export type SimulationFailure =
  | { kind: "reverted"; errorName?: string; args?: readonly unknown[]; message: string }
  | { kind: "insufficient_funds" }
  | { kind: "unavailable" };

function revertData(error: BaseError): Hex | undefined {
  let data: Hex | undefined;
  error.walk((e) => {
    const candidate = (e as { data?: unknown }).data;
    if (typeof candidate === "string" && candidate.startsWith("0x") && candidate.length >= 10) {
      data = candidate as Hex;
      return true;
    }
    if (candidate && typeof candidate === "object" && typeof (candidate as { data?: unknown }).data === "string") {
      data = (candidate as { data: Hex }).data;
      return true;
    }
    return false;
  });
  return data;
}

/** The contract errors a simulation's revert is decoded with. */
export type RevertAbi = Abi;

/** A failed eth_estimateGas/eth_call: a revert (decoded with `abi` when possible) or an outage. */
export function classifySimulationError(error: unknown, abi?: RevertAbi): SimulationFailure {
  if (!(error instanceof BaseError)) return { kind: "unavailable" };
  if (error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError)) return { kind: "unavailable" };
  if (error.walk((e) => e instanceof InsufficientFundsError)) return { kind: "insufficient_funds" };
  // A call answered with nothing: no contract at the address, or one without this function.
  if (error.walk((e) => e instanceof ContractFunctionZeroDataError)) return { kind: "reverted", message: "the address returned no data (no contract there, or not this interface)" };
  const reverted = error.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
  if (reverted) {
    return { kind: "reverted", errorName: reverted.data?.errorName, args: reverted.data?.args, message: reverted.reason ?? reverted.shortMessage };
  }
  const data = revertData(error);
  if (data && abi) {
    try {
      const decoded = decodeErrorResult({ abi, data });
      return { kind: "reverted", errorName: decoded.errorName, args: decoded.args, message: decoded.errorName };
    } catch {
      // not one of the ABI's errors
    }
  }
  const rpc = error.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
  if (rpc && rpc.code === 3) return { kind: "reverted", message: rpc.shortMessage };
  if (getNodeError(error, {}).walk((e) => e instanceof InsufficientFundsError)) return { kind: "insufficient_funds" };
  if (rpc && !NOT_FINAL_RPC_CODES.has(rpc.code)) return { kind: "reverted", message: rpc.shortMessage };
  // A contract read whose call succeeded failed afterwards: the node answered with data that
  // does not decode as the ABI says (too short, or a uint8 beyond 2^53), so not this interface.
  if (error instanceof ContractFunctionExecutionError && !error.walk((e) => e instanceof CallExecutionError)) {
    return { kind: "reverted", message: "the contract's answer does not decode as this interface" };
  }
  return { kind: "unavailable" };
}
