import { createPublicClient, http } from "viem";

/** Latest block number of an RPC endpoint, failing after `timeoutMs`. */
export async function fetchBlockNumber(rpcUrl: string, timeoutMs: number): Promise<bigint> {
  const client = createPublicClient({ transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 0 }) });
  return client.getBlockNumber({ cacheTime: 0 });
}
