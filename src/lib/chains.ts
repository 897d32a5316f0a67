import { AppError } from "./errors";

export interface ChainConfig {
  chainId: number;
  /** Slug prefix for drop collections, e.g. `soneium`. */
  name: string;
  rpcUrl: string;
  seaportAddress: string;
  dropFactoryAddress: string;
  /** Blocks behind `latest` the indexer stays. */
  confirmations: number;
  /** Block the indexer's first run on this chain starts at (default: the head, or the first drop's deployment). */
  indexerStartBlock?: number;
  nativeSymbol: string;
}

export const DEFAULT_CHAIN_ID = 1868;

let cached: { raw: string; chains: Map<number, ChainConfig> } | undefined;

/** Parses the CHAINS var once per isolate (it is a JSON string: chainId -> config). */
export function chainsFrom(env: Pick<Env, "CHAINS">): Map<number, ChainConfig> {
  if (cached?.raw === env.CHAINS) return cached.chains;
  const parsed = JSON.parse(env.CHAINS) as Record<string, Omit<ChainConfig, "chainId">>;
  const chains = new Map<number, ChainConfig>();
  for (const [id, config] of Object.entries(parsed)) {
    chains.set(Number(id), { ...config, chainId: Number(id) });
  }
  cached = { raw: env.CHAINS, chains };
  return chains;
}

export function getChain(env: Pick<Env, "CHAINS">, chainId: number): ChainConfig {
  const chain = chainsFrom(env).get(chainId);
  if (!chain) {
    throw new AppError("unsupported_chain", `chain ${chainId} is not supported`, [
      { path: "chainId", message: `supported chains: ${[...chainsFrom(env).keys()].join(", ")}` },
    ]);
  }
  return chain;
}
