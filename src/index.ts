// Registers every transaction kind with the engine before anything can send or settle one.
import "./services/transaction-kinds";
import { createApp } from "./app";
import { serviceContext } from "./services/context";
import { runScheduledIndexer } from "./services/indexer/run";
import { projectsWithDueDeliveries } from "./services/webhooks/deliver";
import { kickWebhooks } from "./services/durable-object-stubs";

export { TxWatcher } from "./durable-objects/tx-watcher";
export { WalletSequencer } from "./durable-objects/wallet-sequencer";
export { WebhookDispatcher } from "./durable-objects/webhook-dispatcher";

const app = createApp();

export default {
  fetch: app.fetch,
  // The cron trigger (wrangler.toml [triggers]): one indexer run over every configured chain,
  // and a nudge to every project with webhook deliveries due (in case a dispatcher lost its kick).
  scheduled(_controller, env, ctx) {
    ctx.waitUntil(runScheduledIndexer(serviceContext(env)));
    ctx.waitUntil(
      projectsWithDueDeliveries(serviceContext(env)).then((projectIds) => Promise.all(projectIds.map((projectId) => kickWebhooks(env, projectId)))),
    );
  },
} satisfies ExportedHandler<Env>;
