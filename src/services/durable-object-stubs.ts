// How the rest of the service, the Durable Objects included, reaches the three Durable Objects:
// a Durable Object never imports another one, it asks for its stub here (docs/architecture.md).
import type { TxWatcher } from "../durable-objects/tx-watcher";
import type { WalletSequencer } from "../durable-objects/wallet-sequencer";
import type { WebhookDispatcher } from "../durable-objects/webhook-dispatcher";

/** One sequencer per wallet and chain: the only place that wallet's nonces are allocated. */
export function sequencerStub(env: Env, chainId: number, walletAddress: string): DurableObjectStub<WalletSequencer> {
  const namespace = env.WALLET_SEQUENCER as DurableObjectNamespace<WalletSequencer>;
  return namespace.get(namespace.idFromName(`${chainId}:${walletAddress.toLowerCase()}`));
}

/** One watcher per transaction record (a fee bump keeps the record, so it keeps the watcher). */
export function watcherStub(env: Env, transactionId: string): DurableObjectStub<TxWatcher> {
  const namespace = env.TX_WATCHER as DurableObjectNamespace<TxWatcher>;
  return namespace.get(namespace.idFromName(transactionId));
}

/** One webhook dispatcher per project. */
export function dispatcherStub(env: Env, projectId: string): DurableObjectStub<WebhookDispatcher> {
  const namespace = env.WEBHOOK_DISPATCHER as DurableObjectNamespace<WebhookDispatcher>;
  return namespace.get(namespace.idFromName(projectId));
}

/** Best effort: a lost kick only delays delivery until the cron's sweep. */
export async function kickWebhooks(env: Env, projectId: string | null | undefined): Promise<void> {
  if (!projectId) return;
  await dispatcherStub(env, projectId)
    .kick(projectId)
    .catch(() => undefined);
}
