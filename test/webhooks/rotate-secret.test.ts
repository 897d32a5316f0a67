// POST /v1/webhooks/{id}/rotate-secret: a new signing secret, with the previous one still signing
// deliveries for an overlap so receivers can switch without rejecting events (decision 88).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { serviceContext } from "../../src/services/context";
import { deliverDue } from "../../src/services/webhooks/deliver";
import { rotateEndpointSecret } from "../../src/services/webhooks/endpoints";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { hookUrl, queuedDelivery, received, verifySignature, type Received } from "../helpers/webhooks";

const HOUR = 60 * 60 * 1000;

async function endpointFor(project: TestProject, name: string) {
  const created = await call("/v1/webhooks", { secretKey: project.secretKey, body: { url: hookUrl(name), events: ["transaction.confirmed"] } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body as { id: string; secret: string; secretVersion: number };
}

const rotate = (project: TestProject, endpointId: string, body?: unknown, headers: Record<string, string> = {}) =>
  call(`/v1/webhooks/${endpointId}/rotate-secret`, { secretKey: project.secretKey, method: "POST", headers, ...(body === undefined ? {} : { body }) });

/** Queues one delivery, sends it the way the dispatcher's alarm does, and returns what the receiver got. */
async function deliverOne(project: TestProject, endpointId: string, name: string): Promise<Received> {
  const eventId = await queuedDelivery(endpointId, project.id, 1_000);
  await deliverDue(serviceContext(env), project.id);
  const delivery = (await received(name)).find((d) => JSON.parse(d.body).id === eventId);
  expect(delivery, `event ${eventId} was delivered`).toBeDefined();
  return delivery!;
}

/**
 * The test D1, except that right after the first read of the endpoint's row another rotation
 * raises its version (as a concurrent request would between this one's read and write).
 */
function rotatedAfterFirstRead(endpointId: string): D1Database {
  let rotated = false;
  const afterRead = async <T>(read: Promise<T>): Promise<T> => {
    const result = await read;
    if (!rotated) {
      rotated = true;
      await env.DB.prepare("update webhook_endpoints set secret_version = secret_version + 1 where id = ?").bind(endpointId).run();
    }
    return result;
  };
  const bound = <T extends object>(target: T, key: string | symbol) => {
    const value = Reflect.get(target, key);
    return typeof value === "function" ? value.bind(target) : value;
  };
  const reading = (statement: D1PreparedStatement): D1PreparedStatement =>
    new Proxy(statement, {
      get(target, key) {
        if (key === "bind") return (...params: unknown[]) => reading(target.bind(...params));
        if (key === "raw" || key === "all" || key === "first") return (...args: unknown[]) => afterRead((target[key] as (...a: unknown[]) => Promise<unknown>)(...args));
        return bound(target, key);
      },
    });
  return new Proxy(env.DB, {
    get(target, key) {
      if (key === "prepare") return (sql: string) => (/^select .* from "webhook_endpoints"/is.test(sql) ? reading(target.prepare(sql)) : target.prepare(sql));
      return bound(target, key);
    },
  });
}

const signatureCount = (delivery: Received) => delivery.headers["mintyard-signature"]!.split(",").filter((part) => part.startsWith("v1=")).length;

describe("rotating a webhook endpoint's signing secret", () => {
  it("signs deliveries with the new secret and, for the overlap, the previous one; the next rotation ends that overlap", async () => {
    const project = await createTestProject("Rotate");
    const endpoint = await endpointFor(project, "rotate");
    expect(endpoint.secretVersion).toBe(1);
    const before = await deliverOne(project, endpoint.id, "rotate");
    expect(signatureCount(before)).toBe(1);

    // No body: the previous secret is honoured for the default 24 h.
    const rotated = await rotate(project, endpoint.id);
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect(rotated.body).toMatchObject({ id: endpoint.id, secretVersion: 2 });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    expect(Math.abs(Date.parse(rotated.body.previousSecretExpiresAt) - (Date.now() + 24 * HOUR))).toBeLessThan(60_000);

    const during = await deliverOne(project, endpoint.id, "rotate");
    expect(signatureCount(during)).toBe(2);
    const [body, header] = [during.body, during.headers["mintyard-signature"]!];
    expect([await verifySignature(rotated.body.secret, header, body), await verifySignature(endpoint.secret, header, body)]).toEqual([true, true]);
    expect(await verifySignature(rotated.body.secret, header, `${body} `)).toBe(false);
    const listed = await call("/v1/webhooks", { secretKey: project.secretKey });
    expect(listed.body.data).toEqual([
      expect.objectContaining({ id: endpoint.id, secretVersion: 2, previousSecretExpiresAt: rotated.body.previousSecretExpiresAt }),
    ]);
    expect(JSON.stringify(listed.body)).not.toContain("whsec_");
    // Once the overlap is over the list says so, and deliveries carry the new signature alone.
    await env.DB.prepare("update webhook_endpoints set previous_secret_until = ? where id = ?").bind(Date.now() - 1_000, endpoint.id).run();
    expect((await call("/v1/webhooks", { secretKey: project.secretKey })).body.data[0]).toMatchObject({ secretVersion: 2, previousSecretExpiresAt: null });
    expect(signatureCount(await deliverOne(project, endpoint.id, "rotate"))).toBe(1);

    // With no overlap asked for, only the newest secret signs: the first one no longer verifies.
    const third = await rotate(project, endpoint.id, { keepPreviousForSeconds: 0 });
    expect(third.body).toMatchObject({ secretVersion: 3, previousSecretExpiresAt: null });
    const after = await deliverOne(project, endpoint.id, "rotate");
    expect(signatureCount(after)).toBe(1);
    const results = await Promise.all([third.body.secret, rotated.body.secret, endpoint.secret].map((secret) => verifySignature(secret, after.headers["mintyard-signature"]!, after.body)));
    expect(results).toEqual([true, false, false]);
  });

  it("replays the same secret under an Idempotency-Key, refuses a rotation another one overtook, and checks its input", async () => {
    const project = await createTestProject("Rotate twice");
    const endpoint = await endpointFor(project, "rotate-twice");
    const key = { "idempotency-key": `rotate-${crypto.randomUUID()}` };
    const first = await rotate(project, endpoint.id, { keepPreviousForSeconds: 60 }, key);
    expect(first.status).toBe(200);
    const replayed = await rotate(project, endpoint.id, { keepPreviousForSeconds: 60 }, key);
    expect([replayed.status, replayed.headers.get("idempotent-replayed"), replayed.body]).toEqual([200, "true", first.body]);
    expect((await call("/v1/webhooks", { secretKey: project.secretKey })).body.data[0].secretVersion).toBe(2);
    // The replayed secret is the one deliveries are signed with.
    const delivery = await deliverOne(project, endpoint.id, "rotate-twice");
    expect(await verifySignature(replayed.body.secret, delivery.headers["mintyard-signature"]!, delivery.body)).toBe(true);

    // Another rotation lands between this one's read of the version and its write: this one
    // changes nothing and answers 409, so no answer shows a secret that is not current.
    const raced = rotateEndpointSecret(serviceContext({ ...env, DB: rotatedAfterFirstRead(endpoint.id) }), project.id, endpoint.id, {});
    await expect(raced).rejects.toMatchObject({ code: "conflict", message: expect.stringContaining("rotated by another request") });
    expect((await call("/v1/webhooks", { secretKey: project.secretKey })).body.data[0].secretVersion).toBe(3);

    for (const bad of [{ keepPreviousForSeconds: -1 }, { keepPreviousForSeconds: 8 * 24 * 3600 }, { keepPreviousForSeconds: 1.5 }, { other: 1 }]) {
      expect(expectEnvelope(await rotate(project, endpoint.id, bad), 400, "validation_error").details?.[0]?.path, JSON.stringify(bad)).toMatch(/^body/);
    }
    expect((await call(`/v1/webhooks/${endpoint.id}`, { secretKey: project.secretKey, method: "DELETE" })).status).toBe(204);
    expectEnvelope(await rotate(project, endpoint.id), 404, "not_found");
  });
});
