// Reads log ranges for one run: splits long address lists, and shrinks the block span, or the
// addresses per call, for the rest of the run when the node refuses a range (providers cap
// eth_getLogs by blocks, results or addresses; decisions 74, 78 and 79).
import { byChainPosition, fetchIndexedLogs, fetchIndexedLogsFromReceipts, RangeRejectedError, type ChainLog } from "../../chain/log-reader";
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

  /**
   * One block, part by part; a part the node refuses is halved, and the run keeps the size it took.
   * An address refused alone is read from the block's receipts (decision 79).
   */
  private async readBlock(rpcUrl: string, addresses: string[], block: number): Promise<ChainLog[]> {
    const read: BlockRead = { block, largestRead: 0, smallestRefused: Infinity };
    const logs: ChainLog[] = [];
    for (let i = 0; i < addresses.length; i += this.addressesPerCall) {
      logs.push(...(await readBlockPart(rpcUrl, addresses.slice(i, i + this.addressesPerCall), read)));
    }
    this.learnFrom(read);
    return logs;
  }

  /**
   * After a refused block: later calls send no more addresses than the node took, and go back to
   * the full block span, since the refusal is put down to the address count. When the node also
   * took a part as large as one it refused, the refusal was about something else (results, a
   * passing rate limit) and nothing is learned. So each lowering at least halves the count, at
   * most log2 of it per run, rather than every block of the run being refused and split again.
   */
  private learnFrom(read: BlockRead) {
    // Receipts served a busy address of a block the node read for others (a cap on results): the
    // next range may be long again. A node that read no part of the block at all (no eth_getLogs
    // on this plan, say) is left at one block a call, each read from its receipts.
    if (read.receiptLogs && read.largestRead > 0) this.span = this.config.blocksPerCall;
    if (read.smallestRefused === Infinity || read.largestRead === 0 || read.largestRead >= read.smallestRefused) return;
    this.addressesPerCall = read.largestRead;
    this.span = this.config.blocksPerCall;
  }
}

/** One block's read so far: the largest address list read, the smallest refused, the logs of its receipts once fetched. */
interface BlockRead {
  readonly block: number;
  largestRead: number;
  smallestRefused: number;
  receiptLogs?: Promise<ChainLog[]>;
}

async function readBlockPart(rpcUrl: string, addresses: string[], read: BlockRead): Promise<ChainLog[]> {
  try {
    const logs = await fetchIndexedLogs(rpcUrl, addresses, read.block, read.block);
    read.largestRead = Math.max(read.largestRead, addresses.length);
    return logs;
  } catch (error) {
    if (!(error instanceof RangeRejectedError)) throw error;
    read.smallestRefused = Math.min(read.smallestRefused, addresses.length);
    // Once the block's receipts are in, they answer for any part the node refuses, unsplit.
    if (read.receiptLogs) return fromReceipts(await read.receiptLogs, addresses);
    return readRefusedPart(rpcUrl, addresses, read, error);
  }
}

/**
 * Addresses the node refused for one block (a provider's cap on results or on addresses per
 * filter): read by halves, each halved again while refused, down to one address, which is read
 * from the block's receipts. Only a node that refuses those too stops the chain's indexing; the
 * error names the block, the address and both error codes (a rate limit or a lagging node passes
 * by itself; a result cap without eth_getBlockReceipts needs another provider).
 */
async function readRefusedPart(rpcUrl: string, addresses: string[], read: BlockRead, refusal: RangeRejectedError): Promise<ChainLog[]> {
  if (addresses.length === 1) return readFromReceipts(rpcUrl, addresses[0]!, read, refusal);
  const half = Math.ceil(addresses.length / 2);
  return [...(await readBlockPart(rpcUrl, addresses.slice(0, half), read)), ...(await readBlockPart(rpcUrl, addresses.slice(half), read))];
}

/** One address's logs of the block, from its receipts, which then answer for the block's other refused parts too. */
async function readFromReceipts(rpcUrl: string, address: string, read: BlockRead, refusal: RangeRejectedError): Promise<ChainLog[]> {
  read.receiptLogs ??= fetchIndexedLogsFromReceipts(rpcUrl, read.block);
  try {
    return fromReceipts(await read.receiptLogs, [address]);
  } catch (error) {
    if (!(error instanceof RangeRejectedError)) throw error;
    throw new ChainUnavailableError(
      `eth_getLogs refused block ${read.block} for ${address} alone (node error ${refusal.code ?? "unknown"}) and eth_getBlockReceipts was refused (node error ${error.code ?? "unknown"})`,
      { cause: error },
    );
  }
}

function fromReceipts(logs: ChainLog[], addresses: string[]): ChainLog[] {
  const wanted = new Set(addresses.map((address) => address.toLowerCase()));
  return logs.filter((log) => wanted.has(log.address.toLowerCase()));
}
