// How the rest of the service reaches the two Durable Objects.
import type { TxWatcher } from "./tx-watcher";
import type { WalletSequencer } from "./wallet-sequencer";

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
