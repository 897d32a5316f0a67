import { encodeFunctionData, erc20Abi, type Address } from "viem";
import { publicClient } from "./client";
import { retryRead } from "./read-retry";

export { erc20Abi };

export const encodeErc20Transfer = (to: string, amount: bigint) =>
  encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to as Address, amount] });

export async function erc20Decimals(rpcUrl: string, token: string): Promise<number> {
  return retryRead(() => publicClient(rpcUrl).readContract({ address: token as Address, abi: erc20Abi, functionName: "decimals" }));
}

export async function erc20Balance(rpcUrl: string, token: string, owner: string): Promise<bigint> {
  return retryRead(() => publicClient(rpcUrl).readContract({ address: token as Address, abi: erc20Abi, functionName: "balanceOf", args: [owner as Address] }));
}

export async function erc20Symbol(rpcUrl: string, token: string): Promise<string> {
  return publicClient(rpcUrl).readContract({ address: token as Address, abi: erc20Abi, functionName: "symbol" });
}

export const encodeErc20Approve = (spender: string, amount: bigint) =>
  encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [spender as Address, amount] });

export async function erc20Allowance(rpcUrl: string, token: string, owner: string, spender: string): Promise<bigint> {
  return publicClient(rpcUrl).readContract({ address: token as Address, abi: erc20Abi, functionName: "allowance", args: [owner as Address, spender as Address] });
}
