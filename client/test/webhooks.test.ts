import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseWebhookSignatureHeader, signWebhookPayload, verifyWebhookSignature } from "../src/index";

const secret = "whsec_q3Jt0f9yVhQ2mB8cX4nZ7pL1sK6dR5wA0eU3iO9gT2";
const body = JSON.stringify({ id: "evt_1", type: "transaction.confirmed", createdAt: "2026-11-21T12:00:00.000Z", data: { id: "tx", status: "confirmed" } });
const now = 1_795_262_400;

/** The scheme written out with Node's own HMAC, independent of the code under test. */
const reference = (timestamp: number, payload: string, key = secret) => createHmac("sha256", key).update(`${timestamp}.${payload}`).digest("hex");

describe("webhook signatures", () => {
  it("signs exactly HMAC-SHA256(secret, `${t}.${body}`) as t=…,v1=…", async () => {
    expect(await signWebhookPayload({ secret, timestamp: now, body })).toBe(`t=${now},v1=${reference(now, body)}`);
  });

  it("accepts the header, or its parts, for the raw body", async () => {
    const header = `t=${now},v1=${reference(now, body)}`;
    expect(await verifyWebhookSignature({ secret, body, signature: header, now })).toBe(true);
    expect(await verifyWebhookSignature({ secret, body, signature: reference(now, body), timestamp: now, now })).toBe(true);
    expect(await verifyWebhookSignature({ secret, body, signature: reference(now, body).toUpperCase(), timestamp: String(now), now })).toBe(true);
    expect(await verifyWebhookSignature({ secret, body: new TextEncoder().encode(body), signature: header, now })).toBe(true);
    expect(await verifyWebhookSignature({ secret, body, signature: ` t=${now}, v1=${reference(now, body)} `, now })).toBe(true);
  });

  it("accepts any of several v1 signatures (secret rotation)", async () => {
    const header = `t=${now},v1=${reference(now, body, "whsec_old")},v1=${reference(now, body)}`;
    expect(await verifyWebhookSignature({ secret, body, signature: header, now })).toBe(true);
    expect(parseWebhookSignatureHeader(header)).toEqual({ timestamp: now, signatures: [reference(now, body, "whsec_old"), reference(now, body)] });
  });

  it("refuses a changed body, another secret, another timestamp or a re-serialised body", async () => {
    const header = `t=${now},v1=${reference(now, body)}`;
    expect(await verifyWebhookSignature({ secret, body: body.replace("confirmed", "reverted"), signature: header, now })).toBe(false);
    expect(await verifyWebhookSignature({ secret: `${secret}x`, body, signature: header, now })).toBe(false);
    expect(await verifyWebhookSignature({ secret, body, signature: `t=${now + 1},v1=${reference(now, body)}`, now })).toBe(false);
    expect(await verifyWebhookSignature({ secret, body: JSON.stringify(JSON.parse(body), null, 2), signature: header, now })).toBe(false);
    // A timestamp passed alongside the header must be the header's.
    expect(await verifyWebhookSignature({ secret, body, signature: header, timestamp: now - 1, now })).toBe(false);
  });

  it("refuses timestamps outside the tolerance, either way", async () => {
    const old = now - 301;
    const future = now + 301;
    expect(await verifyWebhookSignature({ secret, body, signature: `t=${old},v1=${reference(old, body)}`, now })).toBe(false);
    expect(await verifyWebhookSignature({ secret, body, signature: `t=${future},v1=${reference(future, body)}`, now })).toBe(false);
    expect(await verifyWebhookSignature({ secret, body, signature: `t=${now - 300},v1=${reference(now - 300, body)}`, now })).toBe(true);
    expect(await verifyWebhookSignature({ secret, body, signature: `t=${old},v1=${reference(old, body)}`, now, toleranceSeconds: 600 })).toBe(true);
    expect(await verifyWebhookSignature({ secret, body, signature: `t=${old},v1=${reference(old, body)}`, now, toleranceSeconds: Infinity })).toBe(true);
    // The default clock: a fresh signature verifies, a day-old one does not.
    const fresh = Math.floor(Date.now() / 1000);
    expect(await verifyWebhookSignature({ secret, body, signature: await signWebhookPayload({ secret, timestamp: fresh, body }) })).toBe(true);
    expect(await verifyWebhookSignature({ secret, body, signature: await signWebhookPayload({ secret, timestamp: fresh - 86_400, body }) })).toBe(false);
  });

  it("answers false, without throwing, for malformed input", async () => {
    const mac = reference(now, body);
    for (const signature of ["", "v1=" + mac, `t=abc,v1=${mac}`, `t=${now}`, `t=${now},t=${now},v1=${mac}`, `t=${now},v1=${mac.slice(2)}`, `t=${now},v1=zz${mac.slice(2)}`, mac]) {
      expect(await verifyWebhookSignature({ secret, body, signature, now }), signature).toBe(false);
    }
    expect(await verifyWebhookSignature({ secret, body, signature: mac, timestamp: "soon", now })).toBe(false);
    expect(await verifyWebhookSignature({ secret, body, signature: mac, timestamp: now, now, toleranceSeconds: Number.NaN })).toBe(false);
    expect(parseWebhookSignatureHeader("nonsense")).toBeNull();
  });
});
