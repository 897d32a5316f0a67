// The webhook tests' side of test/fixtures/webhook-receiver.ts (a loopback receiver started by the
// global setup) and a way to queue a delivery row directly, at any age.
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { webhookPayload } from "../../src/services/webhooks/events";
import { call } from "./http";
import type { TestProject } from "./projects";

export interface Received {
  headers: Record<string, string>;
  body: string;
  status: number;
}

export const hookUrl = (name: string) => `${env.WEBHOOK_RECEIVER_URL}/hooks/${name}`;

/** Every delivery the receiver got at `name`, in order, with the status it answered. */
export const received = async (name: string): Promise<Received[]> => (await fetch(`${env.WEBHOOK_RECEIVER_URL}/__received/${name}`)).json();

/** The receiver answers the next `count` deliveries at `name` with `status` (500 unless said). */
export const failNext = (name: string, count: number, status = 500) =>
  fetch(`${env.WEBHOOK_RECEIVER_URL}/__fail/${name}`, { method: "POST", body: JSON.stringify({ count, status }) });

/** A transaction.confirmed delivery row made `ageMs` ago and due `dueSinceMs` ago; returns its event id. */
export async function queuedDelivery(endpointId: string, projectId: string, ageMs: number, dueSinceMs = 1_000): Promise<string> {
  const payload = webhookPayload("transaction.confirmed", { ageMs });
  const now = Date.now();
  await env.DB.prepare(
    `insert into webhook_deliveries (id, endpoint_id, project_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at)
     values (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?)`,
  )
    .bind(crypto.randomUUID(), endpointId, projectId, payload.id, payload.type, JSON.stringify(payload), now - dueSinceMs, now - ageMs)
    .run();
  return payload.id;
}

/**
 * The receiver side of the signature scheme, written independently of the service's code: the
 * request is genuine when any `v1` of the header is the HMAC of "<t>.<body>" under `secret`.
 */
export async function verifySignature(secret: string, header: string, body: string): Promise<boolean> {
  const parts = header.split(",").map((part) => part.split("=") as [string, string]);
  const timestamp = parts.find(([name]) => name === "t")?.[1];
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  for (const [, signature] of parts.filter(([name]) => name === "v1")) {
    const mac = Uint8Array.from(signature.match(/../g)!.map((byte) => parseInt(byte, 16)));
    if (await crypto.subtle.verify("HMAC", key, mac, new TextEncoder().encode(`${timestamp}.${body}`))) return true;
  }
  return false;
}

/** A `transaction.confirmed` endpoint of the project at the receiver's `name`; returns its id. */
export async function registeredEndpoint(project: TestProject, name: string): Promise<string> {
  const created = await call("/v1/webhooks", { secretKey: project.secretKey, body: { url: hookUrl(name), events: ["transaction.confirmed"] } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.id;
}

/**
 * A delivery of an event `ageMs` old that ended `status` an hour ago after `attempts` tries,
 * inserted finished (never due, so no dispatcher turn can send it first).
 */
export async function finishedDelivery(endpointId: string, projectId: string, ageMs: number, status: "failed" | "delivered", attempts = 10) {
  const payload = webhookPayload("transaction.confirmed", { ageMs });
  const deliveryId = crypto.randomUUID();
  const now = Date.now();
  await env.DB.prepare(
    `insert into webhook_deliveries (id, endpoint_id, project_id, event_id, event_type, payload, status, attempts, last_status_code, last_error, next_attempt_at, created_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  )
    .bind(deliveryId, endpointId, projectId, payload.id, payload.type, JSON.stringify(payload), status, attempts, status === "failed" ? 500 : 200, status === "failed" ? "HTTP 500" : null, now - 60 * 60 * 1000, now - ageMs)
    .run();
  return { eventId: payload.id, deliveryId };
}
