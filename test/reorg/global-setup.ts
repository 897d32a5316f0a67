import type { TestProject } from "vitest/node";
import { startAnvil, type AnvilHandle } from "../../scripts/lib/anvil.mjs";
import { deployDevnet, devnetChains } from "../../scripts/lib/devnet.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    reorgAnvilUrl: string;
    reorgChainsConfig: string;
  }
}

let anvil: AnvilHandle | undefined;

// The reorg suite rewrites its chain's recent blocks (anvil_reorg), which would drop other test
// files' transactions: it gets a chain of its own.
export async function setup(project: TestProject) {
  anvil = await startAnvil({ blockTime: 1 });
  const contracts = await deployDevnet(anvil.url);
  project.provide("reorgAnvilUrl", anvil.url);
  project.provide("reorgChainsConfig", JSON.stringify(devnetChains(anvil.url, contracts)));
}

export async function teardown() {
  await anvil?.stop();
}
