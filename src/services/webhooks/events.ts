// Webhook events are written to `webhook_deliveries` in the same D1 batch as the change they
// report (one row per subscribed endpoint), so an event is never lost once the change is stored;
// the project's WebhookDispatcher then delivers them, at least once.

/** How long a delivery is retried after its event (or its last resend): 24 h. */
export const DELIVERY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** A failed delivery's lastError when its endpoint is disabled (decision 108), followed by the reason. */
export const DISABLED_ERROR_PREFIX = "endpoint disabled: ";

export const WEBHOOK_EVENTS = [
  "transaction.pending",
  "transaction.confirmed",
  "transaction.reverted",
  "transaction.failed",
  "order.filled",
  "webhook_endpoint.disabled",
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface WebhookPayload {
  id: string;
  type: WebhookEvent;
  createdAt: string;
  data: Record<string, unknown>;
}

export function webhookPayload(type: WebhookEvent, data: Record<string, unknown>): WebhookPayload {
  return { id: crypto.randomUUID(), type, createdAt: new Date().toISOString(), data };
}

// A random v4 UUID per inserted row (randomblob is evaluated per call).
const UUID_SQL = `lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' || substr(lower(hex(randomblob(2))), 2) || '-' ||
  substr('89ab', 1 + abs(random()) % 4, 1) || substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6)))`;

// Each queued delivery names its project under this column, so a batch's caller can wake exactly
// the dispatchers that got work (see queuedForProjects).
const QUEUED_FOR_PROJECT = "queued_for_project";

/** The projects a batch queued deliveries for, from the rows its enqueue statements returned. */
export function queuedForProjects(results: D1Result[]): string[] {
  const projects = results.flatMap((result) => (result.results as Record<string, unknown>[]).map((row) => row[QUEUED_FOR_PROJECT]));
  return [...new Set(projects.filter((project): project is string => typeof project === "string"))];
}

// The event of a disabled endpoint (decision 108) is recorded as failed, unsent: enabling the
// endpoint and recovering the range sends it then.
const DISABLED_ERROR_SQL = `'${DISABLED_ERROR_PREFIX}' || e.disabled_reason`;

/**
 * Queues `payload` for every live endpoint of the project subscribed to its type (as failed for a
 * disabled one; only queued rows name their project to the caller).
 * `projectSql` is either a bound `?` (the project id) or a subquery returning it; `onlyIf`
 * ties the insert to the change it reports (e.g. the transaction is still pending).
 */
export function enqueueWebhookStatement(
  db: D1Database,
  payload: WebhookPayload,
  project: { sql: string; params: unknown[] },
  onlyIf?: { sql: string; params: unknown[] },
): D1PreparedStatement {
  const now = Date.now();
  return db
    .prepare(
      `insert into webhook_deliveries (id, endpoint_id, project_id, event_id, event_type, payload, status, last_error, attempts, next_attempt_at, created_at)
       select ${UUID_SQL}, e.id, e.project_id, ?, ?, ?,
         case when e.disabled_at is null then 'pending' else 'failed' end,
         case when e.disabled_at is null then null else ${DISABLED_ERROR_SQL} end, 0, ?, ?
       from webhook_endpoints e
       where e.project_id = (${project.sql}) and e.deleted_at is null
         and exists (select 1 from json_each(e.events) where value = ?)
         and ${onlyIf?.sql ?? "1"}
       on conflict do nothing
       returning case when status = 'pending' then project_id end as ${QUEUED_FOR_PROJECT}`,
    )
    .bind(payload.id, payload.type, JSON.stringify(payload), now, now, ...project.params, payload.type, ...(onlyIf?.params ?? []));
}
