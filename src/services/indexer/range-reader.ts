// Reads log ranges for one run: splits long address lists, and shrinks the block span for the
// rest of the run when the node refuses a range (providers cap eth_getLogs by blocks or results).
import { fetchIndexedLogs, RangeRejectedError, type ChainLog } from "../../chain/log-reader";
import { ChainUnavailableError } from "../../chain/chain-unavailable";
import { ADDRESSES_PER_CALL, type IndexerConfig } from "./config";

export class RunState {
  /** Blocks per eth_getLogs call right now. */
  span: number;
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
        for (let i = 0; i < addresses.length; i += ADDRESSES_PER_CALL) {
          logs.push(...(await fetchIndexedLogs(rpcUrl, addresses.slice(i, i + ADDRESSES_PER_CALL), from, end)));
        }
        if (addresses.length > ADDRESSES_PER_CALL) sortedByPosition(logs);
        this.logsLeft -= logs.length;
        return { to: end, logs };
      } catch (error) {
        if (!(error instanceof RangeRejectedError)) throw error;
        if (end === from) {
          const logs = sortedByPosition(await readRefusedBlock(rpcUrl, addresses, from, error));
          this.logsLeft -= logs.length;
          return { to: end, logs };
        }
        this.span = Math.max(1, Math.floor((end - from + 1) / 2));
        end = from + this.span - 1;
      }
    }
  }
}

const sortedByPosition = (logs: ChainLog[]) => logs.sort((a, b) => Number(a.blockNumber! - b.blockNumber!) || a.logIndex! - b.logIndex!);

/**
 * One block the node refused for these addresses (a provider's cap on results or on addresses per
 * filter): it is read by halves of the list, each halved again while refused, down to one address.
 * Only a block refused for a single address stops the chain's indexing; the error names the block,
 * the address and the node's error code (a rate limit or a lagging node passes by itself; a result
 * cap needs another provider).
 */
async function readRefusedBlock(rpcUrl: string, addresses: string[], block: number, refusal: RangeRejectedError): Promise<ChainLog[]> {
  if (addresses.length === 1) {
    throw new ChainUnavailableError(`eth_getLogs refused block ${block} for ${addresses[0]} alone (node error ${refusal.code ?? "unknown"})`, { cause: refusal });
  }
  const size = addresses.length > ADDRESSES_PER_CALL ? ADDRESSES_PER_CALL : Math.ceil(addresses.length / 2);
  const logs: ChainLog[] = [];
  for (let i = 0; i < addresses.length; i += size) logs.push(...(await readBlockPart(rpcUrl, addresses.slice(i, i + size), block)));
  return logs;
}

async function readBlockPart(rpcUrl: string, addresses: string[], block: number): Promise<ChainLog[]> {
  try {
    return await fetchIndexedLogs(rpcUrl, addresses, block, block);
  } catch (error) {
    if (!(error instanceof RangeRejectedError)) throw error;
    return readRefusedBlock(rpcUrl, addresses, block, error);
  }
}
