// Answers that say the node, or the provider in front of it, could not serve a call right now,
// as opposed to what it thinks of the call.
import { BaseError, RpcRequestError } from "viem";

/** Internal error, resource unavailable, limit exceeded (EIP-1474), and the HTTP 429 some providers put in the JSON-RPC body. */
export const NOT_FINAL_RPC_CODES: ReadonlySet<number> = new Set([-32603, -32002, -32005, 429]);

/** A JSON-RPC error whose code is one of NOT_FINAL_RPC_CODES. */
export function busyAnswer(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false;
  const rpc = error.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
  return rpc !== null && NOT_FINAL_RPC_CODES.has(rpc.code);
}
