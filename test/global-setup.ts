import type { TestProject } from "vitest/node";
import { startAnvil, type AnvilHandle } from "../scripts/lib/anvil.mjs";
import { deployDevnet, devnetChains } from "../scripts/lib/devnet.mjs";
import { startSeaportJsClient } from "./fixtures/seaport-js-client";
import { startWebhookReceiver } from "./fixtures/webhook-receiver";

declare module "vitest" {
  export interface ProvidedContext {
    rpcUrl: string;
    chainsConfig: string;
    seaportClientUrl: string;
    webhookReceiverUrl: string;
  }
}

let anvil: AnvilHandle | undefined;
let seaportClient: Awaited<ReturnType<typeof startSeaportJsClient>> | undefined;
let webhookReceiver: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;

export async function setup(project: TestProject) {
  anvil = await startAnvil({ blockTime: 1 });
  const contracts = await deployDevnet(anvil.url);
  const chains = devnetChains(anvil.url, contracts);
  seaportClient = await startSeaportJsClient(anvil.url, contracts.seaportAddress);
  project.provide("seaportClientUrl", seaportClient.url);
  webhookReceiver = await startWebhookReceiver();
  project.provide("webhookReceiverUrl", webhookReceiver.url);
  project.provide("rpcUrl", anvil.url);
  project.provide("chainsConfig", JSON.stringify(chains));
}

export async function teardown() {
  await seaportClient?.stop();
  await webhookReceiver?.stop();
  await anvil?.stop();
}
