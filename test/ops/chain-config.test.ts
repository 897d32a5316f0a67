// The drop contracts' addresses that wrangler.toml ships must be where the current artifacts put
// them through the CREATE2 deployer. A contract change moves them; this test then fails until
// the config is updated (npm run contracts:deploy prints the new dropFactoryAddress).
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
});
