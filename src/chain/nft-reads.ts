// Ownership and approval reads an order's validity depends on.
import { parseAbi, type Address } from "viem";
import { publicClient } from "./client";

const nftAbi = parseAbi([
  "function ownerOf(uint256 tokenId) view returns (address)",
  "function getApproved(uint256 tokenId) view returns (address)",
  "function balanceOf(address owner, uint256 id) view returns (uint256)",
  "function isApprovedForAll(address owner, address operator) view returns (bool)",
]);

/** The ERC721 owner, or null when the token does not exist (ownerOf reverts). */
export async function erc721OwnerOf(rpcUrl: string, contract: string, tokenId: string): Promise<string | null> {
  try {
    const owner = await publicClient(rpcUrl).readContract({ address: contract as Address, abi: nftAbi, functionName: "ownerOf", args: [BigInt(tokenId)] });
    return owner.toLowerCase();
  } catch {
    return null;
  }
}

export async function erc1155BalanceOf(rpcUrl: string, contract: string, owner: string, tokenId: string): Promise<bigint> {
  return publicClient(rpcUrl).readContract({ address: contract as Address, abi: nftAbi, functionName: "balanceOf", args: [owner as Address, BigInt(tokenId)] });
}

/** Whether `operator` may move the owner's token: approval for all, or (ERC721) for this token. */
export async function canOperate(rpcUrl: string, contract: string, owner: string, operator: string, erc721TokenId?: string): Promise<boolean> {
  const client = publicClient(rpcUrl);
  const forAll = await client.readContract({ address: contract as Address, abi: nftAbi, functionName: "isApprovedForAll", args: [owner as Address, operator as Address] });
  if (forAll || erc721TokenId === undefined) return forAll;
  try {
    const approved = await client.readContract({ address: contract as Address, abi: nftAbi, functionName: "getApproved", args: [BigInt(erc721TokenId)] });
    return approved.toLowerCase() === operator.toLowerCase();
  } catch {
    return false;
  }
}
