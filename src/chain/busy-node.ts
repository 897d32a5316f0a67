// Answers that say the node, or the provider in front of it, could not serve a call right now,
// as opposed to what it thinks of the call.
import { BaseError, RpcRequestError } from "viem";

/** Resource unavailable, limit exceeded (EIP-1474), and the HTTP 429 some providers put in the JSON-RPC body. */
const BUSY_RPC_CODES: ReadonlySet<number> = new Set([-32002, -32005, 429]);

/**
 * Not the node's verdict on a call: the busy codes, and -32603 (internal error). -32603 is kept
 * out of `busyAnswer`: some nodes (Hardhat-style) answer a reverting eth_call with it, and a read
 * retried or a token URI given up on for a revert would repeat for ever.
 */
export const NOT_FINAL_RPC_CODES: ReadonlySet<number> = new Set([-32603, ...BUSY_RPC_CODES]);

/** A JSON-RPC error whose code says the node was too busy to serve the call. */
export function busyAnswer(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  const rpc = error.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
  return rpc !== null && BUSY_RPC_CODES.has(rpc.code);
}
