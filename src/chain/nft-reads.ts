// Ownership and approval reads an order's validity (and a token's existence) depends on. A revert
// is the contract's answer ("no"); no answer from the node is a ChainUnavailableError, never a
// "no": an RPC outage must not look like a seller who lost the token.
import { parseAbi, type Address } from "viem";
import { ChainUnavailableError } from "./chain-unavailable";
import { publicClient } from "./client";
import { retryRead } from "./read-retry";
import { classifySimulationError } from "./rpc-errors";

const nftAbi = parseAbi([
  "function ownerOf(uint256 tokenId) view returns (address)",
  "function getApproved(uint256 tokenId) view returns (address)",
  "function balanceOf(address owner, uint256 id) view returns (uint256)",
  "function isApprovedForAll(address owner, address operator) view returns (bool)",
  "function totalMinted() view returns (uint256)",
]);

/** The call's result, `onRevert` when the contract reverted (or has no such function). */
async function readOr<T>(what: string, read: () => Promise<T>, onRevert: T): Promise<T> {
  try {
    return await retryRead(read);
  } catch (error) {
    if (classifySimulationError(error).kind === "unavailable") throw new ChainUnavailableError(`${what} failed`, { cause: error });
    return onRevert;
  }
}

/** The ERC721 owner, or null when the token does not exist (ownerOf reverts). */
export async function erc721OwnerOf(rpcUrl: string, contract: string, tokenId: string): Promise<string | null> {
  const owner = await readOr(
    "ownerOf",
    () => publicClient(rpcUrl).readContract({ address: contract as Address, abi: nftAbi, functionName: "ownerOf", args: [BigInt(tokenId)] }),
    null,
  );
  return owner?.toLowerCase() ?? null;
}

/** How many tokens one of our drop contracts has minted, burned ones included (its ids are 1…n); 0 when it has no code yet. */
export async function dropTotalMinted(rpcUrl: string, contract: string): Promise<bigint> {
  return readOr("totalMinted", () => publicClient(rpcUrl).readContract({ address: contract as Address, abi: nftAbi, functionName: "totalMinted" }), 0n);
}

export async function erc1155BalanceOf(rpcUrl: string, contract: string, owner: string, tokenId: string): Promise<bigint> {
  return readOr(
    "balanceOf",
    () => publicClient(rpcUrl).readContract({ address: contract as Address, abi: nftAbi, functionName: "balanceOf", args: [owner as Address, BigInt(tokenId)] }),
    0n,
  );
}

/** Whether `operator` may move the owner's token: approval for all, or (ERC721) for this token. */
export async function canOperate(rpcUrl: string, contract: string, owner: string, operator: string, erc721TokenId?: string): Promise<boolean> {
  const client = publicClient(rpcUrl);
  const forAll = await readOr(
    "isApprovedForAll",
    () => client.readContract({ address: contract as Address, abi: nftAbi, functionName: "isApprovedForAll", args: [owner as Address, operator as Address] }),
    false,
  );
  if (forAll || erc721TokenId === undefined) return forAll;
  const approved = await readOr(
    "getApproved",
    () => client.readContract({ address: contract as Address, abi: nftAbi, functionName: "getApproved", args: [BigInt(erc721TokenId)] }),
    null,
  );
  return approved?.toLowerCase() === operator.toLowerCase();
}
