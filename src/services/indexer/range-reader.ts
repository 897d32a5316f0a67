// Reads log ranges for one run: splits long address lists, and shrinks the block span for the
// rest of the run when the node refuses a range (providers cap eth_getLogs by blocks or results).
import { fetchIndexedLogs, RangeRejectedError, type ChainLog } from "../../chain/log-reader";
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
      try {
        const logs: ChainLog[] = [];
        for (let i = 0; i < addresses.length; i += this.addressesPerCall) {
          logs.push(...(await fetchIndexedLogs(rpcUrl, addresses.slice(i, i + this.addressesPerCall), from, end)));
        }
        if (addresses.length > this.addressesPerCall) sortedByPosition(logs);
        this.logsLeft -= logs.length;
        return { to: end, logs };
      } catch (error) {
        if (!(error instanceof RangeRejectedError)) throw error;
        if (end === from) {
          const parts: PartSizes = { largestRead: 0, smallestRefused: Infinity };
          const logs = sortedByPosition(await readRefusedBlock(rpcUrl, addresses, from, error, this.addressesPerCall, parts));
          this.learnFrom(parts);
          this.logsLeft -= logs.length;
          return { to: end, logs };
        }
        this.span = Math.max(1, Math.floor((end - from + 1) / 2));
        end = from + this.span - 1;
      }
    }
  }

  /**
   * A block read part by part: later calls send no more addresses than the node took, and go back
   * to the full block span, since the refusal is put down to the address count. A node that also
   * caps results shrinks the span again; each lowering of the address count (at most log2 of it)
   * costs those few refused calls once, where every block used to be refused and split again.
   */
  private learnFrom(parts: PartSizes) {
    const taken = Math.max(1, Math.min(parts.largestRead, parts.smallestRefused - 1));
    if (taken >= this.addressesPerCall) return;
    this.addressesPerCall = taken;
    this.span = this.config.blocksPerCall;
  }
}

/** The largest address list a refused block was read with, and the smallest refused for it. */
interface PartSizes {
  largestRead: number;
  smallestRefused: number;
}

const sortedByPosition = (logs: ChainLog[]) => logs.sort((a, b) => Number(a.blockNumber! - b.blockNumber!) || a.logIndex! - b.logIndex!);

/**
 * One block the node refused for these addresses (a provider's cap on results or on addresses per
 * filter): it is read by parts of at most `perCall` addresses, each halved while refused, down to
 * one address. Only a block refused for a single address stops the chain's indexing; the error
 * names the block, the address and the node's error code (a rate limit or a lagging node passes by
 * itself; a result cap needs another provider).
 */
async function readRefusedBlock(
  rpcUrl: string,
  addresses: string[],
  block: number,
  refusal: RangeRejectedError,
  perCall: number,
  parts: PartSizes,
): Promise<ChainLog[]> {
  parts.smallestRefused = Math.min(parts.smallestRefused, Math.min(addresses.length, perCall));
  if (addresses.length === 1) {
    throw new ChainUnavailableError(`eth_getLogs refused block ${block} for ${addresses[0]} alone (node error ${refusal.code ?? "unknown"})`, { cause: refusal });
  }
  const size = addresses.length > perCall ? perCall : Math.ceil(addresses.length / 2);
  const logs: ChainLog[] = [];
  for (let i = 0; i < addresses.length; i += size) logs.push(...(await readBlockPart(rpcUrl, addresses.slice(i, i + size), block, parts)));
  return logs;
}

async function readBlockPart(rpcUrl: string, addresses: string[], block: number, parts: PartSizes): Promise<ChainLog[]> {
  try {
    const logs = await fetchIndexedLogs(rpcUrl, addresses, block, block);
    parts.largestRead = Math.max(parts.largestRead, addresses.length);
    return logs;
  } catch (error) {
    if (!(error instanceof RangeRejectedError)) throw error;
    return readRefusedBlock(rpcUrl, addresses, block, error, addresses.length, parts);
  }
}
