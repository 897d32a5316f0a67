// Webhook endpoints that answer 410 Gone or fail every attempt for DISABLE_AFTER_FAILING_MS are
// disabled (decision 108): their events are recorded as failed, unsent, until the project
// enables the endpoint and recovers the range. deliverDue is driven directly, as the dispatcher's
// alarm runs it, so nothing else sends meanwhile.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { serviceContext } from "../../src/services/context";
import { deliverDue } from "../../src/services/webhooks/deliver";
import { DISABLE_AFTER_FAILING_MS } from "../../src/services/webhooks/endpoint-health";
import { enqueueWebhookStatement, queuedForProjects, webhookPayload } from "../../src/services/webhooks/events";
import { until } from "../helpers/engine";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { failNext, hookUrl, queuedDelivery, received, registeredEndpoint } from "../helpers/webhooks";

const MINUTE = 60_000;

interface DeliveryRow {
  event_id: string;
  status: string;
  last_status_code: number | null;
  last_error: string | null;
}
const deliveries = async (endpointId: string) =>
  (await env.DB.prepare("select event_id, status, last_status_code, last_error from webhook_deliveries where endpoint_id = ? order by created_at, id").bind(endpointId).all<DeliveryRow>()).results;
const failingSince = async (endpointId: string) =>
  (await env.DB.prepare("select failing_since from webhook_endpoints where id = ?").bind(endpointId).first<{ failing_since: number | null }>())?.failing_since;
/** A failure run that began `since` ms ago and last failed `lastFailed` ms ago. */
const setRun = (endpointId: string, since: number, lastFailed: number) =>
  env.DB.prepare("update webhook_endpoints set failing_since = ?, last_failed_at = ? where id = ?").bind(Date.now() - since, Date.now() - lastFailed, endpointId).run();
const dueNow = (endpointId: string) =>
  env.DB.prepare("update webhook_deliveries set next_attempt_at = ? where endpoint_id = ? and status = 'pending'").bind(Date.now() - 1, endpointId).run();
interface EndpointView {
  id: string;
  status: string;
  failingSince: string | null;
  disabledAt: string | null;
  disabledReason: string | null;
}
const endpointView = async (project: TestProject, endpointId: string) =>
  ((await call("/v1/webhooks", { secretKey: project.secretKey })).body.data as EndpointView[]).find(
    (endpoint) => endpoint.id === endpointId,
  );
const confirmedEvent = async (projectId: string) => {
  const payload = webhookPayload("transaction.confirmed", {});
  return { eventId: payload.id, result: await enqueueWebhookStatement(env.DB, payload, { sql: "?", params: [projectId] }).run() };
};

describe("an endpoint that answers 410 Gone", () => {
  it("is disabled at once, its events failed unsent until it is enabled, and recovering them sends them", async () => {
    const project = await createTestProject("Gone endpoint");
    const [gone, sibling] = [await registeredEndpoint(project, "gone"), await registeredEndpoint(project, "gone-sibling")];
    const startedAt = new Date(Date.now() - 5 * MINUTE).toISOString();
    await failNext("gone", 1, 410);
    // Two older events first: the first is answered 410, the second must not be sent at all.
    const [answered, stopped] = [await queuedDelivery(gone, project.id, 2 * MINUTE, 2_000), await queuedDelivery(gone, project.id, MINUTE, 1_000)];
    const siblingEvent = await queuedDelivery(sibling, project.id, MINUTE);

    await deliverDue(serviceContext(env), project.id);

    expect((await received("gone")).map((delivery) => JSON.parse(delivery.body).id)).toEqual([answered]);
    const stoppedRows = await deliveries(gone);
    expect(stoppedRows).toEqual([
      { event_id: answered, status: "failed", last_status_code: 410, last_error: "endpoint disabled: it answered 410 Gone" },
      { event_id: stopped, status: "failed", last_status_code: null, last_error: "endpoint disabled: it answered 410 Gone" },
    ]);
    // Another endpoint of the project is not affected.
    expect((await deliveries(sibling)).find((row) => row.event_id === siblingEvent)?.status).toBe("delivered");
    const disabled = await endpointView(project, gone);
    expect(disabled).toMatchObject({ status: "disabled", disabledReason: "it answered 410 Gone" });
    expect(Math.abs(Date.parse(disabled!.disabledAt!) - Date.now())).toBeLessThan(MINUTE);
    expect(disabled!.failingSince).toBe(disabled!.disabledAt);

    // An event while disabled: recorded failed for it, pending for the sibling; only the sibling's
    // project is named for a dispatcher kick, and the disabled endpoint gets nothing.
    const whileDisabled = await confirmedEvent(project.id);
    expect(queuedForProjects([whileDisabled.result])).toEqual([project.id]);
    expect((await deliveries(gone)).at(-1)).toMatchObject({ status: "failed", last_error: "endpoint disabled: it answered 410 Gone" });
    await deliverDue(serviceContext(env), project.id);
    expect(await received("gone")).toHaveLength(1);
    expect((await received("gone-sibling")).length).toBe(2);

    // Nothing can be queued for it again until it is enabled.
    const resent = await call(`/v1/webhooks/${gone}/deliveries/${(await env.DB.prepare("select id from webhook_deliveries where event_id = ?").bind(answered).first<{ id: string }>())!.id}/resend`, {
      method: "POST",
      secretKey: project.secretKey,
    });
    expectEnvelope(resent, 409, "conflict");
    expect(resent.body.error.message).toContain(`POST /v1/webhooks/${gone}/enable`);
    expectEnvelope(await call(`/v1/webhooks/${gone}/recover`, { secretKey: project.secretKey, body: { since: startedAt } }), 409, "conflict");

    const enabled = await call(`/v1/webhooks/${gone}/enable`, { method: "POST", secretKey: project.secretKey });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    expect(enabled.body).toMatchObject({ id: gone, status: "enabled", failingSince: null, disabledAt: null, disabledReason: null });
    // A delivery window before the run began: the events whose retries the run failed.
    expect(enabled.body.recoverSince).toBe(new Date(Date.parse(disabled!.failingSince!) - 24 * 60 * MINUTE).toISOString());
    // Enabling an enabled endpoint changes nothing.
    expect((await call(`/v1/webhooks/${gone}/enable`, { method: "POST", secretKey: project.secretKey })).body).toEqual({ ...enabled.body, recoverSince: null });

    // The three that failed while it was gone go out on recover from recoverSince (the project's dispatcher, kicked).
    const recovered = await call(`/v1/webhooks/${gone}/recover`, { secretKey: project.secretKey, body: { since: enabled.body.recoverSince } });
    expect(recovered.body).toEqual({ requeued: 3, more: false });
    await until(() => deliveries(gone), (rows) => rows.every((row) => row.status === "delivered"), 30_000);
    const sent = (await received("gone")).slice(1).map((delivery) => JSON.parse(delivery.body).id);
    expect(sent.sort()).toEqual([answered, stopped, whileDisabled.eventId].sort());

    // A deleted endpoint cannot be enabled.
    await call(`/v1/webhooks/${gone}`, { method: "DELETE", secretKey: project.secretKey });
    expectEnvelope(await call(`/v1/webhooks/${gone}/enable`, { method: "POST", secretKey: project.secretKey }), 404, "not_found");
  });

  it("records a project's events failed when its only endpoint is disabled, waking no dispatcher, and names the enable route on re-registering", async () => {
    const project = await createTestProject("Only endpoint gone");
    const only = await registeredEndpoint(project, "only-gone");
    await failNext("only-gone", 1, 410);
    await queuedDelivery(only, project.id, MINUTE);
    await deliverDue(serviceContext(env), project.id);
    expect((await endpointView(project, only))?.status).toBe("disabled");

    const event = await confirmedEvent(project.id);
    expect(event.result.meta.changes).toBe(1);
    expect(queuedForProjects([event.result])).toEqual([]);
    expect((await deliveries(only)).at(-1)).toMatchObject({ event_id: event.eventId, status: "failed" });

    const again = await call("/v1/webhooks", { secretKey: project.secretKey, body: { url: hookUrl("only-gone"), events: ["transaction.confirmed"] } });
    expectEnvelope(again, 409, "conflict");
    expect(again.body.error.message).toContain(`POST /v1/webhooks/${only}/enable`);
  });
});

describe("webhook_endpoint.disabled", () => {
  it("tells the project's endpoints subscribed to it, and records its own copy failed", async () => {
    const project = await createTestProject("Disabled notice");
    const subscribe = async (name: string, events: string[]) =>
      (await call("/v1/webhooks", { secretKey: project.secretKey, body: { url: hookUrl(name), events } })).body.id as string;
    const gone = await subscribe("notice-gone", ["transaction.confirmed", "webhook_endpoint.disabled"]);
    await subscribe("notice-watcher", ["webhook_endpoint.disabled"]);
    await subscribe("notice-other", ["transaction.confirmed"]);
    await failNext("notice-gone", 1, 410);
    await queuedDelivery(gone, project.id, MINUTE);

    // The disabling turn queues the notice; the dispatcher's next alarm sends it.
    await deliverDue(serviceContext(env), project.id);
    await deliverDue(serviceContext(env), project.id);

    const [notice] = await received("notice-watcher");
    expect(notice?.headers["mintyard-event"]).toBe("webhook_endpoint.disabled");
    const body = JSON.parse(notice!.body);
    expect(body).toMatchObject({ type: "webhook_endpoint.disabled", data: { endpoint: { id: gone, url: hookUrl("notice-gone"), status: "disabled", disabledReason: "it answered 410 Gone" } } });
    expect(body.data.endpoint.disabledAt).toBe((await endpointView(project, gone))?.disabledAt);
    expect(await received("notice-other")).toEqual([]);
    // The disabled endpoint's own copy: recorded, not sent.
    expect((await deliveries(gone)).find((row) => row.event_id === body.id)).toMatchObject({ status: "failed", last_error: "endpoint disabled: it answered 410 Gone" });
    expect(await received("notice-gone")).toHaveLength(1);
  });
});

describe("an endpoint whose every attempt fails", () => {
  it(`is disabled once a failure run has lasted ${DISABLE_AFTER_FAILING_MS / 86_400_000} days; an answered attempt or a day without failures ends the run`, async () => {
    const project = await createTestProject("Failing endpoint");
    const failing = await registeredEndpoint(project, "failing-for-days");
    const ctx = serviceContext(env);
    const DAY = 24 * 60 * MINUTE;

    // The first failure starts the run; the next answered attempt ends it.
    await failNext("failing-for-days", 1);
    await queuedDelivery(failing, project.id, MINUTE);
    const beforeFailure = Date.now();
    await deliverDue(ctx, project.id);
    expect(await failingSince(failing)).toBeGreaterThanOrEqual(beforeFailure);
    expect((await endpointView(project, failing))?.failingSince).not.toBeNull();
    await dueNow(failing);
    await deliverDue(ctx, project.id);
    expect(await failingSince(failing)).toBeNull();

    // A run a little short of the limit, failing an hour ago: a 429 continues it, and it stays enabled.
    await setRun(failing, DISABLE_AFTER_FAILING_MS - 10 * MINUTE, 60 * MINUTE);
    const almost = (await failingSince(failing))!;
    await failNext("failing-for-days", 1, 429);
    await queuedDelivery(failing, project.id, MINUTE);
    await deliverDue(ctx, project.id);
    expect(await endpointView(project, failing)).toMatchObject({ status: "enabled", failingSince: new Date(almost).toISOString() });

    // A run that began six days ago but whose last failure is as old: left alone for a day, it was
    // not failing while tried. The next failure starts a new run instead of disabling.
    await setRun(failing, 6 * DAY, 6 * DAY - MINUTE);
    await dueNow(failing);
    await failNext("failing-for-days", 1, 400);
    const beforeNewRun = Date.now();
    await deliverDue(ctx, project.id);
    expect((await endpointView(project, failing))?.status).toBe("enabled");
    expect(await failingSince(failing)).toBeGreaterThanOrEqual(beforeNewRun);

    // Past the limit with a failure an hour ago, the next failure (any non-2xx) disables it, and
    // its pending deliveries fail unsent.
    await setRun(failing, DISABLE_AFTER_FAILING_MS + MINUTE, 60 * MINUTE);
    const longAgo = (await failingSince(failing))!;
    await dueNow(failing);
    await queuedDelivery(failing, project.id, 10_000);
    await failNext("failing-for-days", 5, 400);
    const sentBefore = (await received("failing-for-days")).length;
    await deliverDue(ctx, project.id);

    const view = await endpointView(project, failing);
    expect(view?.status).toBe("disabled");
    expect(view?.disabledReason).toMatch(new RegExp(`^every attempt failed from ${new Date(longAgo).toISOString().replace(/[.]/g, "\\.")} to `));
    expect(view?.failingSince).toBe(new Date(longAgo).toISOString());
    // The first due row was tried; the disabling stopped the rest.
    expect((await received("failing-for-days")).length).toBe(sentBefore + 1);
    const rows = await deliveries(failing);
    expect(rows.filter((row) => row.status === "pending")).toEqual([]);
    expect(rows.filter((row) => row.status === "failed").length).toBeGreaterThan(1);
    expect(rows.filter((row) => row.status === "failed").every((row) => row.last_error === `endpoint disabled: ${view?.disabledReason}`)).toBe(true);
  });
});
