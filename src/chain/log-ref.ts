import type { Log } from "viem";

/**
 * Where a log sits on the chain. `blockHash` tells two inclusions of one transaction apart: after
 * a reorg the same transaction can come back in another block, at other log indexes.
 */
export type LogRef = { transactionHash: string; logIndex: number; blockNumber: number; blockHash: string | null };

/** Only the position fields of a decoded event. */
export const pickLogRef = ({ transactionHash, logIndex, blockNumber, blockHash }: LogRef): LogRef => ({ transactionHash, logIndex, blockNumber, blockHash });

export function logRef(log: Log): LogRef {
  return {
    transactionHash: log.transactionHash!.toLowerCase(),
    logIndex: Number(log.logIndex),
    blockNumber: Number(log.blockNumber),
    blockHash: log.blockHash?.toLowerCase() ?? null,
  };
}
