// POST /v1/webhooks/{id}/recover: every failed delivery of an endpoint in a time range is queued
// again, at most RECOVER_MAX_PER_CALL per call (decision 101).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { RECOVER_MAX_PER_CALL } from "../../src/services/webhooks/recover";
import { until } from "../helpers/engine";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { finishedDelivery, received, registeredEndpoint } from "../helpers/webhooks";

const HOUR = 60 * 60 * 1000;

const finishedEvent = async (...args: Parameters<typeof finishedDelivery>) => (await finishedDelivery(...args)).eventId;
const statusOf = async (eventId: string) => (await env.DB.prepare("select status from webhook_deliveries where event_id = ?").bind(eventId).first<{ status: string }>())?.status;
const hoursAgo = (hours: number) => new Date(Date.now() - hours * HOUR).toISOString();
const recover = (project: TestProject, endpointId: string, body: unknown, headers: Record<string, string> = {}) =>
  call(`/v1/webhooks/${endpointId}/recover`, { secretKey: project.secretKey, body, headers });

describe("recovering an endpoint's failed deliveries", () => {
  it("queues the failed deliveries of the range again, and only those, which then go out", async () => {
    const project = await createTestProject("Recover");
    const [endpointId, siblingId] = [await registeredEndpoint(project, "recover"), await registeredEndpoint(project, "recover-sibling")];
    // Events over a day old: their first 24 h of retries are over, so only a new window sends them.
    const tooOld = await finishedEvent(endpointId, project.id, 50 * HOUR, "failed");
    const inRange = [await finishedEvent(endpointId, project.id, 40 * HOUR, "failed"), await finishedEvent(endpointId, project.id, 30 * HOUR, "failed")];
    const delivered = await finishedEvent(endpointId, project.id, 35 * HOUR, "delivered");
    const tooNew = await finishedEvent(endpointId, project.id, 2 * HOUR, "failed");
    const sibling = await finishedEvent(siblingId, project.id, 35 * HOUR, "failed");

    const key = { "idempotency-key": `recover-${crypto.randomUUID()}` };
    const range = { since: hoursAgo(45), until: hoursAgo(25) };
    const queued = await recover(project, endpointId, range, key);
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    expect(queued.body).toEqual({ requeued: 2, more: false });
    // As a single resend: due now, a new 24 h window, the backoff from the start.
    const requeued = await env.DB.prepare("select attempts, window_started_at, next_attempt_at, delivered_at from webhook_deliveries where event_id in (?, ?)").bind(...inRange).all<Record<string, number | null>>();
    for (const row of requeued.results) {
      expect(row.attempts).toBe(0);
      expect(row.delivered_at).toBeNull();
      expect(Math.abs(row.window_started_at! - Date.now())).toBeLessThan(60_000);
    }
    const replayed = await recover(project, endpointId, range, key);
    expect([replayed.status, replayed.headers.get("idempotent-replayed"), replayed.body]).toEqual([202, "true", queued.body]);

    expect(await Promise.all([tooOld, delivered, tooNew, sibling].map(statusOf))).toEqual(["failed", "delivered", "failed", "failed"]);
    const sent = await until(() => received("recover"), (list) => list.length >= 2, 30_000);
    expect(sent.map((delivery) => JSON.parse(delivery.body).id).sort()).toEqual([...inRange].sort());
    await until(() => Promise.all(inRange.map(statusOf)), (statuses) => statuses.every((status) => status === "delivered"));
    // Without `until`, the range runs to now.
    expect((await recover(project, endpointId, { since: hoursAgo(3) })).body).toEqual({ requeued: 1, more: false });
    expect(await statusOf(tooNew)).not.toBe("failed");
    for (const id of [endpointId, siblingId]) await call(`/v1/webhooks/${id}`, { secretKey: project.secretKey, method: "DELETE" });
  });

  it(`queues at most ${RECOVER_MAX_PER_CALL} per call and says when more are left`, async () => {
    const project = await createTestProject("Recover many");
    const endpointId = await registeredEndpoint(project, "recover-many");
    const total = RECOVER_MAX_PER_CALL + 1;
    const now = Date.now();
    await env.DB.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < ?)
       insert into webhook_deliveries (id, endpoint_id, project_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at)
       select lower(hex(randomblob(16))), ?, ?, lower(hex(randomblob(16))), 'transaction.confirmed', '{}', 'failed', 10, ?, ? - i from n`,
    )
      .bind(total, endpointId, project.id, now - HOUR, now - HOUR)
      .run();
    const range = { since: hoursAgo(2), until: hoursAgo(0.5) };
    expect((await recover(project, endpointId, range)).body).toEqual({ requeued: RECOVER_MAX_PER_CALL, more: true });
    // The oldest went first: the one left is the newest.
    const left = await env.DB.prepare("select created_at from webhook_deliveries where endpoint_id = ? and status = 'failed'").bind(endpointId).all<{ created_at: number }>();
    expect(left.results).toEqual([{ created_at: now - HOUR - 1 }]);
    expect((await recover(project, endpointId, range)).body).toEqual({ requeued: 1, more: false });
    expect((await recover(project, endpointId, range)).body).toEqual({ requeued: 0, more: false });
    await call(`/v1/webhooks/${endpointId}`, { secretKey: project.secretKey, method: "DELETE" });
  });

  it("refuses an endpoint whose URL the rules now refuse, whose deliveries would fail again unsent", async () => {
    const project = await createTestProject("Recover refused");
    const endpointId = await registeredEndpoint(project, "recover-refused");
    const failed = await finishedEvent(endpointId, project.id, 10 * HOUR, "failed");
    // A stored URL the rules refuse (private addresses are allowed in tests, so plain http
    // stands in for them).
    await env.DB.prepare("update webhook_endpoints set url = 'http://example.com/hook' where id = ?").bind(endpointId).run();
    const refused = expectEnvelope(await recover(project, endpointId, { since: hoursAgo(20) }), 409, "conflict");
    expect(refused.message).toContain("refused");
    expect(await statusOf(failed)).toBe("failed");
    await call(`/v1/webhooks/${endpointId}`, { secretKey: project.secretKey, method: "DELETE" });
  });

  it("refuses a bad range, another project's or a deleted endpoint, and the publishable key", async () => {
    const [project, other] = [await createTestProject("Recover owner"), await createTestProject("Recover stranger")];
    const endpointId = await registeredEndpoint(project, "recover-own");
    const failed = await finishedEvent(endpointId, project.id, 10 * HOUR, "failed");
    const range = { since: hoursAgo(20) };

    const backwards = expectEnvelope(await recover(project, endpointId, { since: hoursAgo(1), until: hoursAgo(2) }), 400, "validation_error");
    expect(backwards.details).toEqual([{ path: "body.until", message: "must be after since" }]);
    const future = expectEnvelope(await recover(project, endpointId, { since: new Date(Date.now() + HOUR).toISOString() }), 400, "validation_error");
    expect(future.details?.map((d) => d.path)).toEqual(["body.since"]);
    expect(expectEnvelope(await recover(project, endpointId, {}), 400, "validation_error").details?.map((d) => d.path)).toEqual(["body.since"]);
    expect(expectEnvelope(await recover(project, endpointId, { since: "yesterday" }), 400, "validation_error").details?.map((d) => d.path)).toEqual(["body.since"]);
    expectEnvelope(await recover(other, endpointId, range), 404, "not_found");
    expectEnvelope(await recover(project, crypto.randomUUID(), range), 404, "not_found");
    expectEnvelope(await call(`/v1/webhooks/${endpointId}/recover`, { apiKey: project.apiKey, body: range }), 403, "forbidden");
    await call(`/v1/webhooks/${endpointId}`, { secretKey: project.secretKey, method: "DELETE" });
    expectEnvelope(await recover(project, endpointId, range), 404, "not_found");
    expect(await statusOf(failed)).toBe("failed");
  });
});
