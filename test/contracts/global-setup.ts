import type { TestProject } from "vitest/node";
import { startAnvil, type AnvilHandle } from "../../scripts/lib/anvil.mjs";

declare module "vitest" {
  export interface ProvidedContext {
    contractsRpcUrl: string;
  }
}

let anvil: AnvilHandle | undefined;

// The contract suite gets its own node in automine mode: each transaction is mined at once,
// so rule-by-rule tests don't wait for 1 s blocks.
export async function setup(project: TestProject) {
  anvil = await startAnvil({ blockTime: 0 });
  project.provide("contractsRpcUrl", anvil.url);
}

export async function teardown() {
  await anvil?.stop();
}
