import { createApp } from "./app";
import { serviceContext } from "./services/context";
import { runScheduledIndexer } from "./services/indexer/run";

export { TxWatcher } from "./durable-objects/tx-watcher";
export { WalletSequencer } from "./durable-objects/wallet-sequencer";

const app = createApp();

export default {
  fetch: app.fetch,
  // The cron trigger (wrangler.toml [triggers]): one indexer run over every configured chain.
  scheduled(_controller, env, ctx) {
    ctx.waitUntil(runScheduledIndexer(serviceContext(env)));
  },
} satisfies ExportedHandler<Env>;
