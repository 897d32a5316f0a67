// The engine's transactions as webhook events: `transaction.pending` when the project listens
// for it, `transaction.<status>` queued in the settlement's own batch (engine/announcer.ts).
import { kickWebhooks } from "../durable-object-stubs";
import type { TransactionAnnouncer } from "../engine/announcer";
import { enqueueWebhookStatement, queuedForProjects, webhookPayload } from "./events";
import { pendingEventSubscribers } from "./subscribers";

export const webhookAnnouncer: TransactionAnnouncer = {
  pendingListeners: pendingEventSubscribers,
  settled: (db, transaction, onlyIf) =>
    enqueueWebhookStatement(db, webhookPayload(`transaction.${transaction.status}`, { transaction }), { sql: "?", params: [transaction.projectId] }, onlyIf),
  // Wakes only the dispatchers the batch gave work: this project's transaction event, and the
  // listing project's order.filled (queued with a fill's effects). Most projects have no endpoint.
  afterSettlement: async (env, results) => {
    await Promise.all(queuedForProjects(results).map((projectId) => kickWebhooks(env, projectId)));
  },
};
