// Reads log ranges for one run: splits long address lists, and shrinks the block span, or the
// addresses per call, for the rest of the run when the node refuses a range (providers cap
// eth_getLogs by blocks, results or addresses; decisions 74 and 78).
import { byChainPosition, fetchIndexedLogs, RangeRejectedError, type ChainLog } from "../../chain/log-reader";
import { ChainUnavailableError } from "../../chain/chain-unavailable";
import { ADDRESSES_PER_CALL, type IndexerConfig } from "./config";

export class RunState {
  /** Blocks per eth_getLogs call right now. */
  span: number;
  /**
   * Addresses per eth_getLogs call right now: lowered for the rest of the run to the largest part
   * the node took when it refused a block for more (a provider's cap on addresses or results).
   */
  addressesPerCall = ADDRESSES_PER_CALL;
  logsLeft: number;
  readonly budget: { tokenUriLookups: number };
  readonly blockTimes = new Map<number, number>();
  private readonly deadline: number;

  constructor(
    readonly config: IndexerConfig,
    startedAt: number,
    /** Projects this run queued webhook deliveries for (order.filled): their dispatchers get a kick. */
    readonly webhookProjects = new Set<string>(),
  ) {
    this.span = config.blocksPerCall;
    this.logsLeft = config.logsPerRun;
    this.budget = { tokenUriLookups: config.tokenUriLookupsPerRun };
    this.deadline = startedAt + config.runMs;
  }

  /** Whether another range may start. */
  canContinue(): boolean {
    return this.logsLeft > 0 && Date.now() < this.deadline;
  }

  /** Reads [from, to] or a shorter prefix of it; returns the last block read and its logs. */
  async read(rpcUrl: string, addresses: string[], from: number, to: number): Promise<{ to: number; logs: ChainLog[] }> {
    let end = Math.min(to, from + this.span - 1);
    for (;;) {
      if (end === from) return this.counted(from, await this.readBlock(rpcUrl, addresses, from));
      try {
        const logs: ChainLog[] = [];
        for (let i = 0; i < addresses.length; i += this.addressesPerCall) {
          logs.push(...(await fetchIndexedLogs(rpcUrl, addresses.slice(i, i + this.addressesPerCall), from, end)));
        }
        return this.counted(end, logs);
      } catch (error) {
        if (!(error instanceof RangeRejectedError)) throw error;
        this.span = Math.max(1, Math.floor((end - from + 1) / 2));
        end = from + this.span - 1;
      }
    }
  }

  /**
   * Logs read in several calls, in chain order. A load-balanced RPC can answer the calls from two
   * nodes on two forks: a block seen with two hashes is read again next run, since claims are per
   * block hash (decision 75) and half a transaction's logs would be refused.
   */
  private counted(to: number, logs: ChainLog[]): { to: number; logs: ChainLog[] } {
    const hashes = new Map<bigint, string | null>();
    for (const log of logs) {
      const seen = hashes.get(log.blockNumber!);
      if (seen !== undefined && seen !== log.blockHash) throw new ChainUnavailableError(`eth_getLogs answered block ${log.blockNumber} from two forks`);
      hashes.set(log.blockNumber!, log.blockHash);
    }
    logs.sort(byChainPosition);
    this.logsLeft -= logs.length;
    return { to, logs };
  }

  /** One block, part by part; a part the node refuses is halved, and the run keeps the size it took. */
  private async readBlock(rpcUrl: string, addresses: string[], block: number): Promise<ChainLog[]> {
    const parts: PartSizes = { largestRead: 0, smallestRefused: Infinity };
    const logs: ChainLog[] = [];
    for (let i = 0; i < addresses.length; i += this.addressesPerCall) {
      logs.push(...(await readBlockPart(rpcUrl, addresses.slice(i, i + this.addressesPerCall), block, parts)));
    }
    this.learnFrom(parts);
    return logs;
  }

  /**
   * After a refused block: later calls send no more addresses than the node took, and go back to
   * the full block span, since the refusal is put down to the address count. When the node also
   * took a part as large as one it refused, the refusal was about something else (results, a
   * passing rate limit) and nothing is learned. So each lowering at least halves the count, at
   * most log2 of it per run, where every block used to be refused and split again.
   */
  private learnFrom(parts: PartSizes) {
    if (parts.smallestRefused === Infinity || parts.largestRead >= parts.smallestRefused) return;
    this.addressesPerCall = Math.max(1, parts.largestRead);
    this.span = this.config.blocksPerCall;
  }
}

/** The largest address list a block was read with, and the smallest refused for it. */
interface PartSizes {
  largestRead: number;
  smallestRefused: number;
}

async function readBlockPart(rpcUrl: string, addresses: string[], block: number, parts: PartSizes): Promise<ChainLog[]> {
  try {
    const logs = await fetchIndexedLogs(rpcUrl, addresses, block, block);
    parts.largestRead = Math.max(parts.largestRead, addresses.length);
    return logs;
  } catch (error) {
    if (!(error instanceof RangeRejectedError)) throw error;
    parts.smallestRefused = Math.min(parts.smallestRefused, addresses.length);
    return readRefusedPart(rpcUrl, addresses, block, error, parts);
  }
}

/**
 * Addresses the node refused for one block (a provider's cap on results or on addresses per
 * filter): read by halves, each halved again while refused, down to one address. Only a block
 * refused for a single address stops the chain's indexing; the error names the block, the address
 * and the node's error code (a rate limit or a lagging node passes by itself; a result cap needs
 * another provider).
 */
async function readRefusedPart(rpcUrl: string, addresses: string[], block: number, refusal: RangeRejectedError, parts: PartSizes): Promise<ChainLog[]> {
  if (addresses.length === 1) {
    throw new ChainUnavailableError(`eth_getLogs refused block ${block} for ${addresses[0]} alone (node error ${refusal.code ?? "unknown"})`, { cause: refusal });
  }
  const half = Math.ceil(addresses.length / 2);
  return [...(await readBlockPart(rpcUrl, addresses.slice(0, half), block, parts)), ...(await readBlockPart(rpcUrl, addresses.slice(half), block, parts))];
}
