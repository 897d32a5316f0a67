import type { TestProject } from "vitest/node";
import { startAnvil, type AnvilHandle } from "../scripts/lib/anvil.mjs";
import { deployDevnet } from "../scripts/lib/devnet.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    rpcUrl: string;
    chainsConfig: string;
  }
}

let anvil: AnvilHandle | undefined;

export async function setup(project: TestProject) {
  anvil = await startAnvil({ blockTime: 1 });
  const contracts = await deployDevnet(anvil.url);
  const chains = {
    1868: {
      name: "soneium",
      rpcUrl: anvil.url,
      seaportAddress: contracts.seaportAddress,
      dropFactoryAddress: contracts.dropFactoryAddress,
      confirmations: 0,
      nativeSymbol: "ETH",
    },
  };
  project.provide("rpcUrl", anvil.url);
  project.provide("chainsConfig", JSON.stringify(chains));
}

export async function teardown() {
  await anvil?.stop();
}
