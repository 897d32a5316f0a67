import type { Log } from "viem";

/**
 * Where a log sits on the chain. `blockHash` tells two inclusions of one transaction apart: after
 * a reorg the same transaction can come back in another block, at other log indexes.
 */
export type LogRef = { transactionHash: string; logIndex: number; blockNumber: number; blockHash: string | null };

export function logRef(log: Log): LogRef {
  return {
    transactionHash: log.transactionHash!.toLowerCase(),
    logIndex: Number(log.logIndex),
    blockNumber: Number(log.blockNumber),
    blockHash: log.blockHash?.toLowerCase() ?? null,
  };
}
