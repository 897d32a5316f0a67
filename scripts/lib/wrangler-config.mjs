// wrangler.toml as wrangler itself resolves it, per environment: `[env.X]` replaces vars and
// bindings wholesale (wrangler envs inherit neither), so each environment is read on its own.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { experimental_readRawConfig, unstable_readConfig } from "wrangler";

export const WRANGLER_TOML = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../wrangler.toml");

/** The environments wrangler.toml defines by name (the top level, used locally, is not one). */
export function namedEnvironments(configPath = WRANGLER_TOML) {
  return Object.keys(experimental_readRawConfig({ config: configPath }).rawConfig.env ?? {});
}

/** The resolved config of `env` (undefined: the top level). */
export function readEnvironment(env, configPath = WRANGLER_TOML) {
  return unstable_readConfig({ config: configPath, env }, { hideWarnings: true });
}

/** CHAINS of a resolved config, parsed: { [chainId]: { name, rpcUrl, seaportAddress, dropFactoryAddress, … } }. */
export function chainsOf(config) {
  return JSON.parse(config.vars.CHAINS);
}
