/** The chain's RPC gave no usable answer (network, timeout, node error); the caller reports 502 or retries later. */
export class ChainUnavailableError extends Error {
  override readonly name = "ChainUnavailableError";
}
