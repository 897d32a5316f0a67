// The indexer's reads: head block, eth_getLogs over tracked contracts, block times. Failures
// leave as typed errors (classified by viem error type, never by message text).
import { BaseError, BlockNotFoundError, formatLog, HttpRequestError, RpcRequestError, TimeoutError, toHex, type Log, type RpcLog } from "viem";
import { NOT_FINAL_RPC_CODES } from "./busy-node";
import { ChainUnavailableError } from "./chain-unavailable";
import { publicClient } from "./client";
import { blockNumber } from "./transactions";
import { SEAPORT_EVENT_TOPICS } from "./seaport-events";
import { APPROVAL_FOR_ALL_TOPIC, TOKEN_APPROVAL_TOPIC, TRANSFER_BATCH_TOPIC, TRANSFER_SINGLE_TOPIC, TRANSFER_TOPIC } from "./transfer-logs";

/** A log as viem formats it, for services that must not import viem themselves. */
export type ChainLog = Log;

/** Every topic0 the indexer applies: collection transfers and approvals, Seaport fills and cancels. */
export const INDEXED_TOPICS = [
  TRANSFER_TOPIC,
  TRANSFER_SINGLE_TOPIC,
  TRANSFER_BATCH_TOPIC,
  APPROVAL_FOR_ALL_TOPIC,
  TOKEN_APPROVAL_TOPIC,
  ...SEAPORT_EVENT_TOPICS,
];

/** The node answered a log read with an error: on most providers a range or result too large, so a smaller range may work. */
export class RangeRejectedError extends Error {
  override readonly name = "RangeRejectedError";
  /** The node's JSON-RPC error code (never its message, which can carry the RPC URL). */
  readonly code: number | undefined;

  constructor(message: string, options: { cause: unknown; code: number | undefined }) {
    super(message, { cause: options.cause });
    this.code = options.code;
  }
}

/** EIP-1474's "limit exceeded": for a log read, the node's cap on blocks or results. */
const LIMIT_EXCEEDED = -32005;

/**
 * `rejected`: the node answered with a JSON-RPC error (-32005 limit exceeded, -32602, -32000…
 * depending on the provider): for a log read, a range or result too large. `unavailable`: no
 * answer (network, timeout, HTTP error), or one saying the node could not serve the call now
 * (busy-node.ts), which a smaller range would not help.
 */
export function classifyReadError(error: unknown): "rejected" | "unavailable" {
  if (!(error instanceof BaseError)) return "unavailable";
  if (error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError)) return "unavailable";
  const rpc = error.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
  return rpc && (rpc.code === LIMIT_EXCEEDED || !NOT_FINAL_RPC_CODES.has(rpc.code)) ? "rejected" : "unavailable";
}

async function unavailableOnError<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new ChainUnavailableError(`${what} failed`, { cause: error });
  }
}

export async function latestBlockNumber(rpcUrl: string): Promise<number> {
  return unavailableOnError("eth_blockNumber", async () => Number(await blockNumber(rpcUrl)));
}

/**
 * A plain request, not viem's getBlock: that one shares an in-flight read of the same block
 * between callers of the isolate, and the watchers settling one block's buys are Durable Objects,
 * which cannot await each other's I/O (decision 17).
 */
export async function blockTimestampMs(rpcUrl: string, blockNumber: number): Promise<number> {
  return unavailableOnError("eth_getBlockByNumber", async () => {
    const block = await publicClient(rpcUrl).request({ method: "eth_getBlockByNumber", params: [toHex(blockNumber), false] });
    if (!block) throw new BlockNotFoundError({ blockNumber: BigInt(blockNumber) });
    return Number(BigInt(block.timestamp)) * 1000;
  });
}

/** Logs of `addresses` with an indexed topic0 in [fromBlock, toBlock], in chain order. */
export async function fetchIndexedLogs(rpcUrl: string, addresses: string[], fromBlock: number, toBlock: number): Promise<Log[]> {
  let raw: RpcLog[];
  try {
    raw = (await publicClient(rpcUrl).request({
      method: "eth_getLogs",
      params: [{ address: addresses as `0x${string}`[], topics: [INDEXED_TOPICS], fromBlock: toHex(fromBlock), toBlock: toHex(toBlock) }],
    })) as RpcLog[];
  } catch (error) {
    throw readFailure(error, `eth_getLogs ${fromBlock}..${toBlock}`);
  }
  return raw.map((log) => formatLog(log)).sort(byChainPosition);
}

/**
 * Every log of one block with an indexed topic0, whatever its address, from the block's receipts:
 * the fallback when the node refuses eth_getLogs for the block even for one address (a provider's
 * cap on results per call, e.g. one transaction minting thousands of tokens). One call, and
 * receipts come whole or not at all. A node without the method refuses it (RangeRejectedError).
 */
export async function fetchIndexedLogsFromReceipts(rpcUrl: string, block: number): Promise<Log[]> {
  let receipts: { logs: RpcLog[] }[] | null;
  try {
    // A plain request: viem's getBlockReceipts shares in-flight reads between callers (decision 17).
    receipts = await publicClient(rpcUrl).request({ method: "eth_getBlockReceipts", params: [toHex(block)] });
  } catch (error) {
    throw readFailure(error, `eth_getBlockReceipts ${block}`);
  }
  if (!receipts) throw new ChainUnavailableError(`eth_getBlockReceipts ${block}: the node has no such block`);
  const indexed = new Set<string>(INDEXED_TOPICS);
  return receipts
    .flatMap((receipt) => receipt.logs)
    .filter((log) => !log.removed && log.topics[0] !== undefined && indexed.has(log.topics[0]))
    .map((log) => formatLog(log))
    .sort(byChainPosition);
}

/** A refused read (the node answered with an error) or an unavailable node, by viem error type. */
function readFailure(error: unknown, what: string): RangeRejectedError | ChainUnavailableError {
  if (classifyReadError(error) === "rejected") {
    const rpc = error instanceof BaseError ? (error.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null) : null;
    return new RangeRejectedError(`${what} rejected`, { cause: error, code: rpc?.code });
  }
  return new ChainUnavailableError(`${what} failed`, { cause: error });
}

/** Chain order of mined logs. */
export const byChainPosition = (a: Log, b: Log) => Number(a.blockNumber! - b.blockNumber!) || a.logIndex! - b.logIndex!;
