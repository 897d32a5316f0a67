import type { TestProject } from "vitest/node";
import { startAnvil, type AnvilHandle } from "../scripts/lib/anvil.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    rpcUrl: string;
    chainsConfig: string;
  }
}

let anvil: AnvilHandle | undefined;

export async function setup(project: TestProject) {
  anvil = await startAnvil({ blockTime: 1 });
  // Contract deployment (Seaport, ConduitController, DropFactory) plugs in here.
  const chains = {
    1868: {
      name: "soneium",
      rpcUrl: anvil.url,
      seaportAddress: "0x0000000000000068F116a894984e2DB1123eB395",
      dropFactoryAddress: "0x0000000000000000000000000000000000000000",
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
