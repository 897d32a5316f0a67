/** Engine timings, from vars so tests and operators can tune them (wrangler.toml documents each). */
export interface EngineConfig {
  pollMs: number;
  maxPollMs: number;
  bumpAfterBlocks: number;
  failAfterMs: number;
  gasBufferPercent: number;
  maxBumps: number;
}

const numberVar = (value: string | undefined, fallback: number) => {
  const parsed = Number(value);
  return Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
};

export function engineConfig(env: Env): EngineConfig {
  return {
    pollMs: numberVar(env.ENGINE_POLL_MS, 1_000),
    maxPollMs: numberVar(env.ENGINE_MAX_POLL_MS, 15_000),
    bumpAfterBlocks: numberVar(env.ENGINE_BUMP_AFTER_BLOCKS, 3),
    failAfterMs: numberVar(env.ENGINE_FAIL_AFTER_SECONDS, 900) * 1000,
    gasBufferPercent: numberVar(env.ENGINE_GAS_BUFFER_PERCENT, 20),
    maxBumps: numberVar(env.ENGINE_MAX_BUMPS, 10),
  };
}

/** Replacement fees: at least +12.5 % on both fields (the nodes' replacement rule), or today's quote if higher. */
export function bumpedFees(
  previous: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
  quote: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
) {
  const bump = (value: bigint) => (value * 1125n) / 1000n + 1n;
  const maxPriorityFeePerGas = [bump(previous.maxPriorityFeePerGas), quote.maxPriorityFeePerGas].reduce((a, b) => (a > b ? a : b));
  const maxFeePerGas = [bump(previous.maxFeePerGas), quote.maxFeePerGas, maxPriorityFeePerGas].reduce((a, b) => (a > b ? a : b));
  return { maxFeePerGas, maxPriorityFeePerGas };
}
