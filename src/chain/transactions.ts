// Raw transaction plumbing for the engine: pricing, estimating, signing, broadcasting, watching.
import { formatTransactionReceipt, hexToBigInt, keccak256, type Address, type Hex, type TransactionReceipt } from "viem";
import type { HDAccount } from "viem/accounts";
import { publicClient } from "./client";
import { retryRead } from "./read-retry";
import { classifyBroadcastError, type BroadcastOutcome } from "./rpc-errors";

export interface UnsignedTransaction {
  chainId: number;
  nonce: number;
  to: string;
  data: string;
  value: bigint;
  gas: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

export interface SignedTransaction {
  raw: Hex;
  hash: Hex;
}

export async function signTransaction(account: HDAccount, tx: UnsignedTransaction): Promise<SignedTransaction> {
  const raw = await account.signTransaction({
    type: "eip1559",
    chainId: tx.chainId,
    nonce: tx.nonce,
    to: tx.to as Address,
    data: tx.data as Hex,
    value: tx.value,
    gas: tx.gas,
    maxFeePerGas: tx.maxFeePerGas,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
  });
  return { raw, hash: keccak256(raw) };
}

/** Whose bytes are being sent: the wallet and the nonce they were signed with. */
export interface BroadcastSender {
  address: string;
  nonce: number;
}

export async function broadcastRaw(rpcUrl: string, raw: string, sender: BroadcastSender): Promise<BroadcastOutcome> {
  try {
    await publicClient(rpcUrl).sendRawTransaction({ serializedTransaction: raw as Hex });
    return { kind: "accepted" };
  } catch (error) {
    const outcome = classifyBroadcastError(error);
    if (outcome.kind === "transient" || outcome.kind === "underpriced") return outcome;
    return refusalConfirmed(rpcUrl, keccak256(raw as Hex), sender, outcome);
  }
}

const SECOND_LOOKUP_AFTER_MS = 1_000;

/**
 * A refusal is acted on (the nonce released or moved past) only once the node agrees. Behind a
 * gateway or a load balancer the answer can come from a node that did not take the bytes while
 * another did: a timeout passed on as a JSON-RPC error, or "already known" (which viem files
 * under "nonce too low") for a copy a gateway's own retry got in first. So: bytes the node
 * knows were accepted, and "nonce too low" holds only once a mined transaction has the nonce.
 * Other refusals are looked up twice, a second apart, since the node that took the bytes may not
 * have pooled them (or passed them to the replica asked) when the answer came back; a refusal
 * whose nonce another pooled transaction holds is `nonce_held`.
 */
async function refusalConfirmed(rpcUrl: string, hash: Hex, sender: BroadcastSender, refusal: BroadcastOutcome): Promise<BroadcastOutcome> {
  const known = () => retryRead(() => nodeKnowsTransaction(rpcUrl, hash));
  try {
    if (await known()) return { kind: "accepted" };
    if (refusal.kind === "nonce_too_low") {
      return (await transactionCount(rpcUrl, sender.address, "latest")) > sender.nonce ? refusal : { kind: "transient" };
    }
    await new Promise((resolve) => setTimeout(resolve, SECOND_LOOKUP_AFTER_MS));
    if (await known()) return { kind: "accepted" };
    if (refusal.kind !== "rejected") return refusal;
    // A refusal of bytes at a nonce the node's pending count has passed: another transaction holds
    // the nonce in the pool (or these very bytes do, on a replica the lookups missed). Either way
    // the nonce is taken for now, not free: it must not be handed out again.
    const passed = (await transactionCount(rpcUrl, sender.address, "pending")) > sender.nonce;
    return passed ? { kind: "nonce_held" } : refusal;
  } catch {
    // No answer: the watcher finds out which transaction took a nonce; other refusals stand.
    return refusal.kind === "nonce_too_low" ? { kind: "transient" } : refusal;
  }
}

export interface FeeQuote {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** EIP-1559 fees: 2 × base fee + tip, so a transaction survives a few full blocks of base-fee rises. */
export async function quoteFees(rpcUrl: string): Promise<FeeQuote> {
  const client = publicClient(rpcUrl);
  const [block, tip] = await Promise.all([
    retryRead(() => client.getBlock({ blockTag: "latest" })),
    retryRead(() => client.estimateMaxPriorityFeePerGas()).catch(() => 1_000_000n),
  ]);
  const baseFee = block.baseFeePerGas ?? 0n;
  const priority = tip > 0n ? tip : 1_000_000n;
  return { maxFeePerGas: baseFee * 2n + priority, maxPriorityFeePerGas: priority };
}

export async function estimateGas(rpcUrl: string, tx: { from: string; to: string; data: string; value: bigint }): Promise<bigint> {
  return retryRead(() =>
    publicClient(rpcUrl).estimateGas({
      account: tx.from as Address,
      to: tx.to as Address,
      data: tx.data as Hex,
      value: tx.value,
    }),
  );
}

export async function transactionCount(rpcUrl: string, address: string, blockTag: "latest" | "pending"): Promise<number> {
  return retryRead(() => publicClient(rpcUrl).getTransactionCount({ address: address as Address, blockTag }));
}

/**
 * A plain eth_blockNumber: viem's getBlockNumber shares its in-flight promise through module
 * state, which would make one Durable Object wait on another's request.
 */
export async function blockNumber(rpcUrl: string): Promise<bigint> {
  return hexToBigInt(await publicClient(rpcUrl).request({ method: "eth_blockNumber" }));
}

/** The latest block's base fee (0 before London), with a plain request like `blockNumber`. */
export async function latestBaseFee(rpcUrl: string): Promise<bigint> {
  const block = await publicClient(rpcUrl).request({ method: "eth_getBlockByNumber", params: ["latest", false] });
  return block?.baseFeePerGas ? hexToBigInt(block.baseFeePerGas) : 0n;
}

export async function nativeBalance(rpcUrl: string, address: string): Promise<bigint> {
  return retryRead(() => publicClient(rpcUrl).getBalance({ address: address as Address }));
}

/** The receipt, or null while the transaction is not mined (or unknown). */
export async function receiptOrNull(rpcUrl: string, hash: string): Promise<TransactionReceipt | null> {
  const receipt = await publicClient(rpcUrl).request({ method: "eth_getTransactionReceipt", params: [hash as Hex] });
  return receipt ? formatTransactionReceipt(receipt) : null;
}

/** Whether the node still has the transaction (in its pool or mined). */
export async function nodeKnowsTransaction(rpcUrl: string, hash: string): Promise<boolean> {
  const tx = await publicClient(rpcUrl).request({ method: "eth_getTransactionByHash", params: [hash as Hex] });
  return tx !== null;
}

export type { TransactionReceipt };
