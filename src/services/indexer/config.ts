/** Indexer limits, from vars so operators can fit them to their RPC provider (wrangler.toml documents each). */
export interface IndexerConfig {
  /** Blocks per eth_getLogs call; halved when the node refuses a range (range-reader.ts). */
  blocksPerCall: number;
  /** Blocks one run reads per chain (head pass), and again for collection backfills. */
  blocksPerRun: number;
  /** A run stops after the range in which it crossed this many logs. */
  logsPerRun: number;
  /** Wall time a run may start new ranges in, so one cron invocation ends before the next. */
  runMs: number;
  /** tokenURI/uri calls per run for tokens minted in registered collections; later ones get a null tokenUri. */
  tokenUriLookupsPerRun: number;
}

const positive = (value: string | undefined, fallback: number) => {
  const parsed = Number(value);
  return Number.isInteger(parsed) && parsed > 0 ? parsed : fallback;
};

export function indexerConfig(env: Env): IndexerConfig {
  return {
    blocksPerCall: positive(env.INDEXER_MAX_BLOCKS, 2_000),
    blocksPerRun: positive(env.INDEXER_MAX_BLOCKS_PER_RUN, 20_000),
    logsPerRun: positive(env.INDEXER_MAX_LOGS_PER_RUN, 5_000),
    runMs: positive(env.INDEXER_MAX_RUN_SECONDS, 30) * 1000,
    tokenUriLookupsPerRun: 50,
  };
}

/** A run's lease outlives its time budget by this much (one slow RPC call or D1 batch). */
export const LEASE_MARGIN_MS = 60_000;
/** Effects of this many statements go to D1 in one batch (each log still claimed on its own). */
export const STATEMENTS_PER_BATCH = 200;
/** eth_getLogs address lists are split at this size; a run lowers it when the node refuses a block for more (decision 78). */
export const ADDRESSES_PER_CALL = 200;
