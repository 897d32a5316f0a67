import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiKeys } from "../../src/db/schema";
import { keyCacheKey, resolveKey } from "../../src/services/auth/keys";
import { serviceContext } from "../../src/services/context";
import { revokeKey } from "../../src/services/projects";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject } from "../helpers/projects";

async function sha256Hex(value: string) {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("keys and tenancy", () => {
  it("accepts either key kind for reads, in either header", async () => {
    const project = await createTestProject();
    expect((await call("/v1/drops", { apiKey: project.apiKey })).status).toBe(200);
    expect((await call("/v1/drops", { secretKey: project.secretKey })).status).toBe(200);
    expect((await call("/v1/drops", { apiKey: project.secretKey })).status).toBe(200);
  });

  it("lets either key read the project wallet (a read, DESIGN §3) but only the secret key spend from it", async () => {
    const project = await createTestProject();
    const expected = { address: project.walletAddress, balances: [{ chainId: 1868, symbol: "ETH", balance: "0" }] };
    for (const key of [{ apiKey: project.apiKey }, { secretKey: project.secretKey }]) {
      const wallet = await call("/v1/project-wallet", key);
      expect(wallet.status).toBe(200);
      expect(wallet.body).toEqual(expected);
    }
    const transfer = { type: "native", recipientAddress: "0x000000000000000000000000000000000000dEaD", amount: "1" };
    expectEnvelope(await call("/v1/project-wallet/transfer", { apiKey: project.apiKey, body: transfer }), 403, "forbidden");
    expectEnvelope(await call("/v1/project-wallet/transfer", { headers: { authorization: `Bearer ${project.apiKey}` }, body: transfer }), 403, "forbidden");
  });

  it("serves a client that sends its API key everywhere and adds the secret key for wallet operations", async () => {
    const project = await createTestProject();
    const both = { apiKey: project.apiKey, secretKey: project.secretKey };
    const transfer = { type: "native", recipientAddress: "0x000000000000000000000000000000000000dEaD", amount: "1" };
    // The secret key is what a transfer needs: past auth, the empty wallet's balance check answers.
    expectEnvelope(await call("/v1/project-wallet/transfer", { ...both, body: transfer }), 422, "insufficient_funds");
    expect((await call("/v1/drops", both)).status).toBe(200);

    // A bad key beside a good one: the good one serves what it may; otherwise the bad one is named.
    const unknownSecret = `sk_${"A".repeat(40)}`;
    expect((await call("/v1/drops", { apiKey: project.apiKey, secretKey: unknownSecret })).status).toBe(200);
    const refused = expectEnvelope(await call("/v1/project-wallet/transfer", { apiKey: project.apiKey, secretKey: unknownSecret, body: transfer }), 401, "unauthorized");
    expect(refused.message).toContain("invalid or revoked");

    // Keys of two projects: no guessing which project the request means.
    const other = await createTestProject();
    const mixed = expectEnvelope(await call("/v1/drops", { apiKey: other.apiKey, secretKey: project.secretKey }), 401, "unauthorized");
    expect(mixed.message).toContain("different projects");
  });

  it("401s missing, malformed, unknown and revoked keys", async () => {
    const project = await createTestProject();
    expectEnvelope(await call("/v1/project-wallet"), 401, "unauthorized");
    expectEnvelope(await call("/v1/project-wallet", { headers: { authorization: "Basic abc" } }), 401, "unauthorized");
    expectEnvelope(await call("/v1/project-wallet", { secretKey: "sk_short" }), 401, "unauthorized");
    expectEnvelope(await call("/v1/project-wallet", { secretKey: `sk_${"A".repeat(40)}` }), 401, "unauthorized");

    // Used once, so the key's hash is cached in KV…
    expect((await call("/v1/project-wallet", { secretKey: project.secretKey })).status).toBe(200);
    const cacheKey = `apikey:${await sha256Hex(project.secretKey)}`;
    expect(await env.KV.get(cacheKey, "json")).toMatchObject({ projectId: project.id, kind: "secret", revoked: false });

    // …and revocation removes it at once.
    const revoked = await call(`/v1/admin/keys/${project.secretKeyId}`, { admin: true, method: "DELETE" });
    expect(revoked.status).toBe(204);
    expect(await env.KV.get(cacheKey)).toBeNull();
    expectEnvelope(await call("/v1/project-wallet", { secretKey: project.secretKey }), 401, "unauthorized");
    // The project's other key still works; revoking twice is a no-op.
    expect((await call("/v1/drops", { apiKey: project.apiKey })).status).toBe(200);
    expect((await call(`/v1/admin/keys/${project.secretKeyId}`, { admin: true, method: "DELETE" })).status).toBe(204);
  });

  // resolveKey and revokeKey driven directly, with a KV stand-in that runs the revocation at the
  // worst moment of the resolve, so the interleaving is deterministic.
  describe("a revocation racing a resolve still wins", () => {
    const plainStore = () => ({ db: serviceContext(env).db, kv: env.KV, cacheTtlSeconds: 60 });

    it("revoked after the resolve read D1 and before it wrote KV: nothing live is cached", async () => {
      const project = await createTestProject();
      const ctx = serviceContext(env);
      const racing = {
        get: (key: string, type: "json") => env.KV.get(key, type),
        put: async (key: string, value: string, options: KVNamespacePutOptions) => {
          await revokeKey(ctx, project.secretKeyId);
          await env.KV.put(key, value, options);
        },
        delete: (key: string) => env.KV.delete(key),
      } as unknown as KVNamespace;

      await resolveKey({ ...plainStore(), kv: racing }, project.secretKey);
      expect(await env.KV.get(keyCacheKey(await sha256Hex(project.secretKey)))).toBeNull();
      expect(await resolveKey(plainStore(), project.secretKey)).toBeNull();
    });

    it("revoked after the resolve read a live KV entry: this isolate does not remember it", async () => {
      const project = await createTestProject();
      const ctx = serviceContext(env);
      const cacheKey = keyCacheKey(await sha256Hex(project.secretKey));
      await env.KV.put(cacheKey, JSON.stringify({ keyId: project.secretKeyId, projectId: project.id, kind: "secret", revoked: false, trustedUntil: Date.now() + 60_000 }));
      const racing = {
        get: async (key: string, type: "json") => {
          const value = await env.KV.get(key, type);
          await revokeKey(ctx, project.secretKeyId);
          return value;
        },
      } as unknown as KVNamespace;

      await resolveKey({ ...plainStore(), kv: racing }, project.secretKey);
      expect(await resolveKey(plainStore(), project.secretKey)).toBeNull();
    });
  });

  // Workers KV refuses a second write to one key within a second (locally it never does).
  describe("the KV cache is only a cache", () => {
    const refusing = {
      get: (key: string, type: "json") => env.KV.get(key, type),
      put: async () => {
        throw new Error("KV PUT failed: 429 Too Many Requests");
      },
    } as unknown as KVNamespace;

    it("resolves a key from D1 when KV refuses to cache it", async () => {
      const project = await createTestProject();
      const store = { db: serviceContext(env).db, kv: refusing, cacheTtlSeconds: 60 };
      expect(await resolveKey(store, project.apiKey)).toMatchObject({ projectId: project.id, kind: "api" });
    });

    it("retries deleting a revoked key's entry that KV first refuses to delete", async () => {
      const project = await createTestProject();
      const ctx = serviceContext(env);
      const cacheKey = keyCacheKey(await sha256Hex(project.secretKey));
      let deletes = 0;
      const racing = {
        get: (key: string, type: "json") => env.KV.get(key, type),
        // The put lands, and the key is revoked before the resolve reads D1 again.
        put: async (key: string, value: string, options: KVNamespacePutOptions) => {
          await env.KV.put(key, value, options);
          await ctx.db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, project.secretKeyId));
        },
        delete: async (key: string) => {
          if (++deletes === 1) throw new Error("KV DELETE failed: 429 Too Many Requests");
          await env.KV.delete(key);
        },
      } as unknown as KVNamespace;
      expect(await resolveKey({ db: ctx.db, kv: racing, cacheTtlSeconds: 60 }, project.secretKey)).toBeNull();
      expect(deletes).toBe(2);
      expect(await env.KV.get(cacheKey)).toBeNull();

      // A KV that never lets go: the key is still refused (null), not a 500.
      const stuck = { ...racing, delete: async () => Promise.reject(new Error("KV DELETE failed: 429 Too Many Requests")) } as unknown as KVNamespace;
      expect(await resolveKey({ db: ctx.db, kv: stuck, cacheTtlSeconds: 60 }, project.secretKey)).toBeNull();
    });

    it("retries the revocation's own delete that KV first refuses", async () => {
      const project = await createTestProject();
      expect((await call("/v1/drops", { apiKey: project.apiKey })).status).toBe(200);
      const cacheKey = keyCacheKey(await sha256Hex(project.apiKey));
      expect(await env.KV.get(cacheKey)).not.toBeNull();
      let deletes = 0;
      const flaky = {
        delete: async (key: string) => {
          if (++deletes === 1) throw new Error("KV DELETE failed: 429 Too Many Requests");
          await env.KV.delete(key);
        },
      } as unknown as KVNamespace;
      await revokeKey({ ...serviceContext(env), env: { ...env, KV: flaky } }, project.apiKeyId);
      expect(deletes).toBe(2);
      expect(await env.KV.get(cacheKey)).toBeNull();
      expectEnvelope(await call("/v1/drops", { apiKey: project.apiKey }), 401, "unauthorized");
    });
  });

  it("never returns plain keys or hashes outside key creation", async () => {
    const project = await createTestProject();
    const listed = await call(`/v1/admin/projects/${project.id}/keys`, { admin: true });
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain(project.apiKey);
    expect(text).not.toContain(await sha256Hex(project.apiKey));
  });
});
