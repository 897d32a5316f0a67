import { encodeFunctionData, erc20Abi, type Address } from "viem";
import { ChainUnavailableError } from "./chain-unavailable";
import { publicClient } from "./client";
import { retryRead } from "./read-retry";
import { detectNftSchema } from "./collection-probe";
import { classifySimulationError } from "./rpc-errors";

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

export type PaymentTokenCheck = { payable: true; symbol: string } | { payable: false; reason: string };

/**
 * Whether `token` can pay a listing: it answers ERC20's `balanceOf` (an address without code, or a
 * contract without that function, cannot) and does not declare an NFT standard through ERC-165 (an
 * ERC721 answers `balanceOf` too, and Seaport would move token ids as "amounts"), with its symbol
 * ("ERC20" when it has none). A read no node answered throws ChainUnavailableError.
 */
export async function erc20PaymentToken(rpcUrl: string, token: string, holder: string): Promise<PaymentTokenCheck> {
  const answered = (error: unknown) => classifySimulationError(error).kind !== "unavailable";
  const [balanceAnswered, nftSchema] = await Promise.all([
    erc20Balance(rpcUrl, token, holder).then(
      () => true,
      (error: unknown) => {
        if (answered(error)) return false;
        throw new ChainUnavailableError(`no answer to balanceOf from ${token}`);
      },
    ),
    detectNftSchema(rpcUrl, token),
  ]);
  if (!balanceAnswered) return { payable: false, reason: "is not an ERC20 token on this chain (no balanceOf)" };
  if (nftSchema) return { payable: false, reason: `is an ${nftSchema} NFT contract, not an ERC20 token` };
  const symbol = await retryRead(() => erc20Symbol(rpcUrl, token)).catch((error: unknown) => {
    if (answered(error)) return "ERC20";
    throw new ChainUnavailableError(`no answer to symbol from ${token}`);
  });
  return { payable: true, symbol };
}
