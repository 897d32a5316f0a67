import { BaseError, HttpRequestError } from "viem";
import { busyAnswer } from "./busy-node";

/** Pauses before the second and third attempt of a read. */
const READ_RETRY_DELAYS_MS = [100, 400];

/**
 * Runs a read-only RPC call again when it got no answer from the node at all (connection
 * failed, or an HTTP error status from a gateway in front of it), or an answer that the node
 * could not serve it now (busy-node.ts: rate limited, overloaded). Reads are safe to repeat, and
 * one blip should cost a client latency, not a 502. Any other answer of the node (a revert, a
 * JSON-RPC error) and a timeout (already 10 s) are returned at once.
 */
export async function retryRead<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      const delay = READ_RETRY_DELAYS_MS[attempt];
      if (delay === undefined || !(noAnswer(error) || busyAnswer(error))) throw error;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/** The node never answered: the connection failed, or a gateway in front of it answered an HTTP error. */
export function noAnswer(error: unknown): boolean {
  return error instanceof BaseError && Boolean(error.walk((e) => e instanceof HttpRequestError));
}
