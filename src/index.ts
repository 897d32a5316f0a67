import { createApp } from "./app";

export { TxWatcher } from "./durable-objects/tx-watcher";
export { WalletSequencer } from "./durable-objects/wallet-sequencer";

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
