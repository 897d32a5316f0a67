import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { webhookEndpoints } from "../../db/schema";

/** At most one live endpoint of the project subscribed to `transaction.pending` (a batchable query). */
export function pendingEventSubscribers(db: Db, projectId: string) {
  return db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.projectId, projectId),
        isNull(webhookEndpoints.deletedAt),
        // A row whose events are not JSON (the API never writes one) must not fail the batch
        // that stores the transaction; its own queueing statements report it.
        sql`case when json_valid(${webhookEndpoints.events}) then exists (select 1 from json_each(${webhookEndpoints.events}) where value = 'transaction.pending') else 0 end`,
      ),
    )
    .limit(1);
}
