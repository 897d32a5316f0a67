import { createPublicClient, http, type PublicClient } from "viem";

const clients = new Map<string, PublicClient>();

/**
 * One viem public client per RPC URL and isolate. No transport retries: the engine decides
 * what to retry (a rebroadcast is not the same as a re-estimate).
 */
export function publicClient(rpcUrl: string): PublicClient {
  let client = clients.get(rpcUrl);
  if (!client) {
    client = createPublicClient({ transport: http(rpcUrl, { timeout: 10_000, retryCount: 0 }), cacheTime: 0 });
    clients.set(rpcUrl, client);
  }
  return client;
}
