// What a contract is: has it code, which NFT standard it declares (ERC-165), a token's URI.
import { parseAbi, toHex, type Address } from "viem";
import { publicClient } from "./client";
import { ChainUnavailableError } from "./chain-unavailable";
import { busyAnswer } from "./busy-node";
import { noAnswer, retryRead } from "./read-retry";
import { classifySimulationError } from "./rpc-errors";

const probeAbi = parseAbi([
  "function supportsInterface(bytes4 interfaceId) view returns (bool)",
  "function tokenURI(uint256 tokenId) view returns (string)",
  "function uri(uint256 id) view returns (string)",
]);

const ERC721_INTERFACE = "0x80ac58cd";
const ERC1155_INTERFACE = "0xd9b67a26";

export async function hasContractCode(rpcUrl: string, address: string): Promise<boolean> {
  try {
    const code = await publicClient(rpcUrl).getCode({ address: address as Address });
    return !!code && code !== "0x";
  } catch (error) {
    throw new ChainUnavailableError("eth_getCode failed", { cause: error });
  }
}

/** A revert means "no" (contracts without ERC-165); no answer from the node is an error. */
async function supports(rpcUrl: string, address: string, interfaceId: `0x${string}`): Promise<boolean> {
  try {
    return await retryRead(() => publicClient(rpcUrl).readContract({ address: address as Address, abi: probeAbi, functionName: "supportsInterface", args: [interfaceId] }));
  } catch (error) {
    if (classifySimulationError(error).kind === "unavailable") throw new ChainUnavailableError("supportsInterface failed", { cause: error });
    return false;
  }
}

/** The NFT standard a contract declares through ERC-165, or null when it declares neither. */
export async function detectNftSchema(rpcUrl: string, address: string): Promise<"ERC721" | "ERC1155" | null> {
  const [erc721, erc1155] = await Promise.all([supports(rpcUrl, address, ERC721_INTERFACE), supports(rpcUrl, address, ERC1155_INTERFACE)]);
  if (erc721) return "ERC721";
  if (erc1155) return "ERC1155";
  return null;
}

/**
 * tokenURI (ERC-721) or uri (ERC-1155, with the standard's `{id}` placeholder filled in), or
 * null when the contract reverts, answers "" or takes too long: one token's URI must not stop
 * indexing. When the node never answered (connection failed, gateway HTTP error such as a rate
 * limit) or only said it was busy (busy-node.ts) after the read's retries, it is a
 * ChainUnavailableError instead: the mint is applied
 * once, so a null written for a blip would stay null; the range is read again next run.
 */
export async function tokenUriOf(rpcUrl: string, contract: string, schema: "ERC721" | "ERC1155", tokenId: string): Promise<string | null> {
  const client = publicClient(rpcUrl);
  const id = BigInt(tokenId);
  try {
    if (schema === "ERC721") {
      return (await retryRead(() => client.readContract({ address: contract as Address, abi: probeAbi, functionName: "tokenURI", args: [id] }))) || null;
    }
    const template = await retryRead(() => client.readContract({ address: contract as Address, abi: probeAbi, functionName: "uri", args: [id] }));
    return template ? template.replaceAll("{id}", toHex(id, { size: 32 }).slice(2)) : null;
  } catch (error) {
    if (noAnswer(error) || busyAnswer(error)) throw new ChainUnavailableError(`${schema === "ERC721" ? "tokenURI" : "uri"} failed`, { cause: error });
    return null;
  }
}
