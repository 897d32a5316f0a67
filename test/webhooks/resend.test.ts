// POST /v1/webhooks/{id}/deliveries/{deliveryId}/resend: a finished delivery goes out again with
// its event, a new 24 h window and the backoff starting over (decision 80).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { serviceContext } from "../../src/services/context";
import { resendDelivery } from "../../src/services/webhooks/endpoints";
import { until } from "../helpers/engine";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { failNext, finishedDelivery, received, registeredEndpoint } from "../helpers/webhooks";

const HOUR = 60 * 60 * 1000;

const resend = (project: TestProject, endpointId: string, deliveryId: string, headers: Record<string, string> = {}) =>
  call(`/v1/webhooks/${endpointId}/deliveries/${deliveryId}/resend`, { secretKey: project.secretKey, method: "POST", headers });

describe("resending a webhook delivery", () => {
  it("sends a failed delivery's event again, retried on a new window with the backoff starting over", async () => {
    const project = await createTestProject("Resend");
    const endpointId = await registeredEndpoint(project, "resend");
    const { eventId, deliveryId } = await finishedDelivery(endpointId, project.id, 25 * HOUR, "failed");
    // The first try after the resend fails too: it must be retried (1 s later here), not failed
    // for a window that ended a day ago nor put 6 h away for its ten earlier attempts.
    await failNext("resend", 1);
    const resentAt = Math.floor(Date.now() / 1000);

    const queued = await resend(project, endpointId, deliveryId);
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    expect(queued.body).toMatchObject({ id: deliveryId, eventId, status: "pending", attempts: 0, deliveredAt: null });
    expect(Math.abs(Date.parse(queued.body.nextAttemptAt) - Date.now())).toBeLessThan(60_000);

    const attempts = await until(() => received("resend"), (list) => list.some((d) => d.status === 200), 30_000);
    expect(attempts.map((d) => d.status)).toEqual([500, 200]);
    for (const attempt of attempts) {
      expect(JSON.parse(attempt.body).id).toBe(eventId);
      expect(attempt.headers["mintyard-delivery"]).toBe(deliveryId);
      expect(Number(/t=(\d+)/.exec(attempt.headers["mintyard-signature"]!)![1])).toBeGreaterThanOrEqual(resentAt);
    }
    const log = await until(
      () => call(`/v1/webhooks/${endpointId}/deliveries`, { secretKey: project.secretKey }),
      (result) => result.body.data[0]?.status === "delivered",
    );
    expect(log.body.data[0]).toMatchObject({ id: deliveryId, status: "delivered", attempts: 2, lastStatusCode: 200, lastError: null });
  });

  it("queues a delivery once when resends race, refuses one still pending, and replays under an Idempotency-Key", async () => {
    const project = await createTestProject("Resend races");
    const endpointId = await registeredEndpoint(project, "resend-busy");
    // The endpoint keeps failing, so a resent delivery stays pending for the whole test.
    await failNext("resend-busy", 100);
    const first = await finishedDelivery(endpointId, project.id, 25 * HOUR, "delivered", 1);
    const answers = await Promise.all([resend(project, endpointId, first.deliveryId), resend(project, endpointId, first.deliveryId)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 409]);
    const refused = expectEnvelope(answers.find((answer) => answer.status === 409)!, 409, "conflict");
    expect(refused.message).toContain("already queued");

    const second = await finishedDelivery(endpointId, project.id, 25 * HOUR, "failed");
    const key = { "idempotency-key": `resend-${crypto.randomUUID()}` };
    const queued = await resend(project, endpointId, second.deliveryId, key);
    expect(queued.status).toBe(202);
    const replayed = await resend(project, endpointId, second.deliveryId, key);
    expect([replayed.status, replayed.headers.get("idempotent-replayed"), replayed.body]).toEqual([202, "true", queued.body]);
    expectEnvelope(await resend(project, endpointId, second.deliveryId), 409, "conflict");

    await call(`/v1/webhooks/${endpointId}`, { secretKey: project.secretKey, method: "DELETE" });
  });

  it("is 404 for an unknown delivery, another endpoint's, another project's, and a deleted endpoint's", async () => {
    const [project, other] = [await createTestProject("Resend owner"), await createTestProject("Resend stranger")];
    const [endpointId, siblingId] = [await registeredEndpoint(project, "resend-own"), await registeredEndpoint(project, "resend-sibling")];
    const { deliveryId } = await finishedDelivery(endpointId, project.id, 25 * HOUR, "failed");

    expectEnvelope(await resend(project, endpointId, crypto.randomUUID()), 404, "not_found");
    expectEnvelope(await resend(project, siblingId, deliveryId), 404, "not_found");
    expectEnvelope(await resend(other, endpointId, deliveryId), 404, "not_found");
    expectEnvelope(await call(`/v1/webhooks/${endpointId}/deliveries/${deliveryId}/resend`, { apiKey: project.apiKey, method: "POST" }), 403, "forbidden");
    expectEnvelope(await resend(project, endpointId, "not-a-uuid"), 400, "validation_error");
    await call(`/v1/webhooks/${endpointId}`, { secretKey: project.secretKey, method: "DELETE" });
    expectEnvelope(await resend(project, endpointId, deliveryId), 404, "not_found");

    const untouched = await env.DB.prepare("select status, attempts from webhook_deliveries where id = ?").bind(deliveryId).first();
    expect(untouched).toEqual({ status: "failed", attempts: 10 });
  });

  it("refuses, with 409, a delivery of an endpoint whose URL the rules now refuse", async () => {
    const project = await createTestProject("Resend refused URL");
    const endpointId = await registeredEndpoint(project, "resend-refused");
    const { deliveryId } = await finishedDelivery(endpointId, project.id, 25 * HOUR, "failed");
    // A stored URL the rules refuse (plain http stands in for a private address, which tests
    // allow).
    await env.DB.prepare("update webhook_endpoints set url = 'http://example.com/hook' where id = ?").bind(endpointId).run();
    const refused = expectEnvelope(await resend(project, endpointId, deliveryId), 409, "conflict");
    expect(refused.message).toContain("URL is refused");
    expect(await env.DB.prepare("select status, attempts from webhook_deliveries where id = ?").bind(deliveryId).first()).toEqual({ status: "failed", attempts: 10 });
  });

  it("queues nothing for an endpoint deleted between its check and the update", async () => {
    const project = await createTestProject("Resend while deleting");
    const endpointId = await registeredEndpoint(project, "resend-deleting");
    const { deliveryId } = await finishedDelivery(endpointId, project.id, 25 * HOUR, "failed");
    // The endpoint is deleted just before the resend's update reaches D1.
    const deleteEndpointFirst = <T>(run: () => Promise<T>) => async () => {
      await env.DB.prepare("update webhook_endpoints set deleted_at = ? where id = ?").bind(Date.now(), endpointId).run();
      return run();
    };
    const racing = new Proxy(env.DB, {
      get: (target, key) => {
        if (key !== "prepare") return Reflect.get(target, key).bind(target);
        return (text: string) => {
          const statement = target.prepare(text);
          if (!/^update "webhook_deliveries"/i.test(text)) return statement;
          return { bind: (...params: unknown[]) => {
            const bound = statement.bind(...params);
            return { all: deleteEndpointFirst(() => bound.all()), raw: deleteEndpointFirst(() => bound.raw()), run: deleteEndpointFirst(() => bound.run()) };
          } };
        };
      },
    });

    await expect(resendDelivery(serviceContext({ ...env, DB: racing }), project.id, endpointId, deliveryId)).rejects.toMatchObject({ code: "not_found" });
    expect(await env.DB.prepare("select status from webhook_deliveries where id = ?").bind(deliveryId).first()).toEqual({ status: "failed" });
  });
});
