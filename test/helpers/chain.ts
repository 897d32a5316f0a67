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

/**
 * A contract at a fresh address that answers every call with `returned` (hex without 0x, at most
 * 32 bytes): a token whose decimals() is absurd, a wallet whose isValidSignature always agrees.
 */
export async function contractAnswering(returned: string): Promise<Address> {
  const address = `0x${[...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, "0")).join("")}` as Address;
  const length = returned.length / 2;
  const byte = (n: number) => n.toString(16).padStart(2, "0");
  // PUSH32 word, PUSH1 0, MSTORE, PUSH1 length, PUSH1 32-length, RETURN: the word's last `length` bytes.
  const word = returned.padStart(64, "0");
  await rpc("anvil_setCode", [address, `0x7f${word}600052${"60"}${byte(length)}60${byte(32 - length)}f3`]);
  return address;
}

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
