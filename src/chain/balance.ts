import { createPublicClient, erc20Abi, http, type Address } from "viem";

const RPC_TIMEOUT_MS = 5_000;

export async function fetchNativeBalance(rpcUrl: string, address: string): Promise<bigint> {
  const client = createPublicClient({ transport: http(rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 1 }) });
  return client.getBalance({ address: address as Address });
}

export async function fetchErc20Balance(rpcUrl: string, token: string, address: string): Promise<bigint> {
  const client = createPublicClient({ transport: http(rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 1 }) });
  return client.readContract({ address: token as Address, abi: erc20Abi, functionName: "balanceOf", args: [address as Address] });
}
