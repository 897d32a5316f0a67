import type { TestProject } from "vitest/node";
import { startAnvil, type AnvilHandle } from "../scripts/lib/anvil.mjs";
import { deployDevnet } from "../scripts/lib/devnet.mjs";
import { startSeaportJsClient } from "./fixtures/seaport-js-client";

declare module "vitest" {
  export interface ProvidedContext {
    rpcUrl: string;
    chainsConfig: string;
    seaportClientUrl: string;
  }
}

let anvil: AnvilHandle | undefined;
let seaportClient: Awaited<ReturnType<typeof startSeaportJsClient>> | undefined;

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
  seaportClient = await startSeaportJsClient(anvil.url, contracts.seaportAddress);
  project.provide("seaportClientUrl", seaportClient.url);
  project.provide("rpcUrl", anvil.url);
  project.provide("chainsConfig", JSON.stringify(chains));
}

export async function teardown() {
  await seaportClient?.stop();
  await anvil?.stop();
}
