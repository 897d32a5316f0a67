export declare const WRANGLER_TOML: string;
export declare function namedEnvironments(configPath?: string): string[];
export interface ResolvedConfig {
  vars: Record<string, unknown>;
  d1_databases: { binding: string; database_name?: string; database_id?: string; migrations_dir?: string }[];
  kv_namespaces: { binding: string; id?: string }[];
  r2_buckets: { binding: string; bucket_name?: string }[];
  durable_objects: { bindings: { name: string; class_name: string }[] };
  migrations: { tag: string; new_sqlite_classes?: string[] }[];
  triggers: { crons?: string[] };
  ratelimits?: { name: string; namespace_id: string; simple: { limit: number; period: number } }[];
  assets?: { directory?: string; binding?: string; run_worker_first?: boolean | string[] };
}
export declare function readEnvironment(env: string | undefined, configPath?: string): ResolvedConfig;
export interface ConfiguredChain {
  name: string;
  rpcUrl: string;
  seaportAddress: string;
  dropFactoryAddress: string;
  confirmations: number;
  nativeSymbol: string;
  indexerStartBlock?: number;
}
export declare function chainsOf(config: Pick<ResolvedConfig, "vars">): Record<string, ConfiguredChain>;
