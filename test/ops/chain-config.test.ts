// The drop contracts' addresses that wrangler.toml ships must be where the current artifacts put
// them through the CREATE2 deployer. A contract change moves them; this test then fails until
// the config is updated (npm run contracts:deploy prints the new dropFactoryAddress). And since
// wrangler environments inherit no vars and no bindings, each must repeat all of the top level's.
import { getAddress, type Hex } from "viem";
import { describe, expect, it } from "vitest";
import { create2Address } from "../../scripts/lib/create2.mjs";
import { DROP_SALTS, dropContractAddresses, dropContracts } from "../../scripts/lib/drop-contracts.mjs";
import { chainsOf, namedEnvironments, readEnvironment } from "../../scripts/lib/wrangler-config.mjs";

const SONEIUM_CHAINS = ["1868", "1946"];
const CANONICAL_SEAPORT_1_6 = "0x0000000000000068F116a894984e2DB1123eB395";
const environments = [undefined, ...namedEnvironments()];
const label = (env: string | undefined) => (env ? `[env.${env}]` : "the top-level [vars]");

describe("wrangler.toml's chain config", () => {
  it.each(environments.map((env) => ({ env, name: label(env) })))("$name ships the factory address the artifacts give, on Soneium and Minato", ({ env }) => {
    const { dropFactoryAddress } = dropContractAddresses();
    const chains = chainsOf(readEnvironment(env));
    const shipped = SONEIUM_CHAINS.filter((id) => chains[id]);
    expect(shipped.length, `${label(env)} configures neither 1868 nor 1946`).toBeGreaterThan(0);
    for (const id of shipped) {
      const chain = chains[id]!;
      expect(
        getAddress(chain.dropFactoryAddress),
        `${label(env)} CHAINS["${id}"].dropFactoryAddress: the artifacts put the DropFactory at ${dropFactoryAddress}; update wrangler.toml`,
      ).toBe(dropFactoryAddress);
      expect(chain.seaportAddress, `${label(env)} CHAINS["${id}"].seaportAddress`).toBe(CANONICAL_SEAPORT_1_6);
    }
  });

  it("moves both addresses when the implementation's code changes by one byte", () => {
    const [implementation, factory] = dropContracts();
    const edited = `${implementation!.initcode.slice(0, -2)}${implementation!.initcode.endsWith("00") ? "01" : "00"}` as Hex;
    const movedImplementation = create2Address(DROP_SALTS.dropImplementationAddress, edited);
    expect(movedImplementation).not.toBe(implementation!.address);
    const movedFactoryInitcode = factory!.initcode.replace(implementation!.address.slice(2).toLowerCase(), movedImplementation.slice(2).toLowerCase()) as Hex;
    expect(movedFactoryInitcode).not.toBe(factory!.initcode);
    expect(create2Address(DROP_SALTS.dropFactoryAddress, movedFactoryInitcode)).not.toBe(factory!.address);
  });

  const names = <T>(list: T[] | undefined, key: (item: T) => string) => (list ?? []).map(key).sort();

  it.each(namedEnvironments())("[env.%s] repeats every var and binding of the top level, with its own resources", (env) => {
    const top = readEnvironment(undefined);
    const config = readEnvironment(env);
    expect(Object.keys(config.vars).sort()).toEqual(Object.keys(top.vars).sort());
    expect(names(config.d1_databases, (d) => d.binding)).toEqual(names(top.d1_databases, (d) => d.binding));
    expect(names(config.kv_namespaces, (k) => k.binding)).toEqual(names(top.kv_namespaces, (k) => k.binding));
    expect(names(config.r2_buckets, (b) => b.binding)).toEqual(names(top.r2_buckets, (b) => b.binding));
    expect(names(config.durable_objects.bindings, (b) => `${b.name}:${b.class_name}`)).toEqual(names(top.durable_objects.bindings, (b) => `${b.name}:${b.class_name}`));
    expect(names(config.ratelimits, (r) => `${r.name}:${r.simple.limit}/${r.simple.period}`)).toEqual(names(top.ratelimits, (r) => `${r.name}:${r.simple.limit}/${r.simple.period}`));
    expect(config.migrations).toEqual(top.migrations);
    expect(config.triggers.crons).toEqual(top.triggers.crons);

    const others = [undefined, ...namedEnvironments().filter((e) => e !== env)].map((e) => readEnvironment(e));
    for (const other of others) {
      expect(config.d1_databases[0]!.database_name).not.toBe(other.d1_databases[0]!.database_name);
      expect(config.r2_buckets[0]!.bucket_name).not.toBe(other.r2_buckets[0]!.bucket_name);
      expect(names(config.ratelimits, (r) => r.namespace_id)).not.toEqual(names(other.ratelimits, (r) => r.namespace_id));
    }
    expect(config.vars.ALLOW_LOOPBACK_WEBHOOKS).toBe("false");
  });

  it("points staging at Minato and production at Soneium, one chain each", () => {
    expect(Object.keys(chainsOf(readEnvironment("staging")))).toEqual(["1946"]);
    expect(chainsOf(readEnvironment("staging"))["1946"]).toMatchObject({ name: "soneium-minato", rpcUrl: "https://rpc.minato.soneium.org" });
    expect(Object.keys(chainsOf(readEnvironment("production")))).toEqual(["1868"]);
    expect(chainsOf(readEnvironment("production"))["1868"]).toMatchObject({ name: "soneium", rpcUrl: "https://rpc.soneium.org" });
  });
});
