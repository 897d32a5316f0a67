import type { TestProject } from "vitest/node";
import { startAnvil, type AnvilHandle } from "../../scripts/lib/anvil.mjs";
import { deployDevnet, devnetChains } from "../../scripts/lib/devnet.mjs";
import { startRpcProxy, type RpcProxy } from "../../scripts/lib/rpc-proxy.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    faultAnvilUrl: string;
    faultProxyUrl: string;
    faultChainsConfig: string;
  }
}

let anvil: AnvilHandle | undefined;
let proxy: RpcProxy | undefined;

// The fault suite gets its own chain, and the Worker reaches it only through a proxy the tests
// can make misbehave; the tests themselves talk to anvil directly to pause mining or drop txs.
export async function setup(project: TestProject) {
  anvil = await startAnvil({ blockTime: 1 });
  const contracts = await deployDevnet(anvil.url);
  proxy = await startRpcProxy({ target: anvil.url });
  project.provide("faultAnvilUrl", anvil.url);
  project.provide("faultProxyUrl", proxy.url);
  project.provide("faultChainsConfig", JSON.stringify(devnetChains(proxy.url, contracts)));
}

export async function teardown() {
  await proxy?.stop();
  await anvil?.stop();
}
