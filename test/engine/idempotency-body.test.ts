// A large Idempotency-Key response lives in R2 (decision 52). Each stored response gets its own
// object, so deleting an expired response's object cannot take a newer one of the same key
// (decision 82).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { loadResponseBody, objectOf, storeResponseBody } from "../../src/services/idempotency-body";

describe("large stored responses of one Idempotency-Key", () => {
  it("go to distinct objects, so deleting the expired one leaves the newer one readable", async () => {
    const [projectId, key] = [crypto.randomUUID(), `reused-${crypto.randomUUID()}`];
    const body = (n: number) => JSON.stringify({ n, padding: "x".repeat(300 * 1024) });
    const expired = await storeResponseBody(env.METADATA, projectId, key, body(1));
    const newer = await storeResponseBody(env.METADATA, projectId, key, body(2));
    expect([objectOf(expired), objectOf(newer)].every((object) => object?.startsWith(`idempotency/${projectId}/`))).toBe(true);

    await env.METADATA.delete(objectOf(expired)!);
    expect(JSON.parse(await loadResponseBody(env.METADATA, newer)).n).toBe(2);
  });
});
