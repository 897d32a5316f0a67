import { env } from "cloudflare:workers";
import { createPublicClient, http, parseAbi, type Address } from "viem";
import { call } from "./http";

export const chainClient = () => createPublicClient({ transport: http(env.RPC_URL) });

export async function rpc<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(env.RPC_URL, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result as T;
}

export const ETHER = 10n ** 18n;

export async function fund(address: string, wei: bigint = 100n * ETHER) {
  await rpc("anvil_setBalance", [address, `0x${wei.toString(16)}`]);
}

/** Polls the API until the transaction leaves `pending` (real receipts, real alarms). */
export async function waitForTransaction(id: string, apiKey: string, timeoutMs = 45_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await call(`/v1/transactions/${id}`, { apiKey });
    if (status !== 200) throw new Error(`GET transaction ${id}: ${status} ${JSON.stringify(body)}`);
    if (body.status !== "pending") return body;
    if (Date.now() > deadline) throw new Error(`transaction ${id} still pending after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export const dropReadAbi = parseAbi([
  "function ownerOf(uint256 tokenId) view returns (address)",
  "function tokenURI(uint256 tokenId) view returns (string)",
  "function totalMinted() view returns (uint256)",
  "function provenanceHash() view returns (bytes32)",
  "function royaltyInfo(uint256 tokenId, uint256 salePrice) view returns (address, uint256)",
]);

export async function ownerOf(contract: string, tokenId: bigint) {
  return chainClient().readContract({ address: contract as Address, abi: dropReadAbi, functionName: "ownerOf", args: [tokenId] });
}
