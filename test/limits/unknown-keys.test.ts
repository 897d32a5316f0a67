// Unknown keys per client (decisions 105, 119). This project allows 3 counted requests per client
// per 10 s (vitest.config.ts); past that, for 60 s, a key of the client's that KV does not know is
// refused without the D1 query it would cost, while every key KV knows (every live key) is still
// looked up and serves. Each burst starts early in one of the limiter's fixed 10 s windows.
import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { anyKey } from "../../src/routes/middleware/auth";
import { AppError } from "../../src/lib/errors";
import type { AppBindings } from "../../src/routes/app-types";
import { countUnknownKey, unknownKeyClient } from "../../src/lib/unknown-keys";
import { keyCacheKey, sha256Hex } from "../../src/services/auth/keys";
import { TEST_ADMIN_TOKEN } from "../fixtures/secrets";
import { DashboardClient } from "../helpers/dashboard";
import { call, expectEnvelope } from "../helpers/http";
import { earlyInLimiterWindow } from "../helpers/limits";
import { createTestProject } from "../helpers/projects";

/** Well-formed (ak_ and 40 base62 characters) and known to nobody. */
const unknownKey = () => `ak_${crypto.randomUUID().replaceAll("-", "")}${crypto.randomUUID().slice(0, 8)}`;

/** The Worker's env with KV and D1 counting the reads made through them. */
function countingEnv() {
  const reads = { kv: 0, d1: 0 };
  const counting = <T extends object>(target: T, methods: string[], count: () => void): T =>
    new Proxy(target, {
      get(object, key) {
        const value = Reflect.get(object, key);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          if (methods.includes(String(key))) count();
          return value.apply(object, args);
        };
      },
    });
  const KV = counting(env.KV, ["get"], () => reads.kv++);
  const DB = counting(env.DB, ["prepare", "batch"], () => reads.d1++);
  return { env: { ...env, KV, DB }, reads };
}

/** The auth middleware alone, in front of a route that answers 200. */
const app = new Hono<AppBindings>()
  .use("*", anyKey)
  .get("/", (c) => c.text("ok"))
  .onError((error, c) => (error instanceof AppError ? c.json({ code: error.code }, error.status, error.headers) : c.text(String(error), 500)));

const ask = async (appEnv: Env, keys: { apiKey?: string; bearer?: string }, client: Record<string, string> = {}) => {
  const headers: Record<string, string> = { ...client };
  if (keys.apiKey) headers["x-api-key"] = keys.apiKey;
  if (keys.bearer) headers.authorization = `Bearer ${keys.bearer}`;
  const response = await app.request("/", { headers }, appEnv);
  return { status: response.status, retryAfter: response.headers.get("retry-after") };
};
const from = (address: string) => ({ "cf-connecting-ip": address });

describe("requests whose unknown keys fail them", () => {
  it("are refused past the limit without reading D1, while the client's keys KV knows serve", async () => {
    const project = await createTestProject("Unknown keys");
    const { env: appEnv, reads } = countingEnv();
    const client = from("198.51.100.7");
    await earlyInLimiterWindow();
    expect((await ask(appEnv, { apiKey: project.apiKey }, client)).status).toBe(200);

    reads.kv = reads.d1 = 0;
    for (let i = 0; i < 3; i++) expect((await ask(appEnv, { bearer: unknownKey() }, client)).status).toBe(401);
    expect(reads.kv).toBeGreaterThanOrEqual(3);
    expect(reads.d1).toBeGreaterThanOrEqual(3);
    expect(await ask(appEnv, { apiKey: unknownKey() }, client)).toEqual({ status: 429, retryAfter: "60" });

    reads.kv = reads.d1 = 0;
    expect(await ask(appEnv, { apiKey: unknownKey() }, client)).toEqual({ status: 429, retryAfter: "60" });
    // Refused on KV's answer alone: the D1 query is what a refused client no longer gets.
    expect(reads).toEqual({ kv: 1, d1: 0 });
    // Every key KV knows is still looked up (so a revocation still counts) and serves: the key this
    // isolate resolved before, one it never resolved (its entry, written at creation, sends the
    // lookup on to D1), and either beside an unknown key.
    expect((await ask(appEnv, { apiKey: project.apiKey }, client)).status).toBe(200);
    expect((await ask(appEnv, { bearer: project.secretKey }, client)).status).toBe(200);
    expect(reads.d1).toBeGreaterThan(0);
    expect((await ask(appEnv, { apiKey: project.apiKey, bearer: unknownKey() }, client)).status).toBe(200);

    // Other clients are not affected; without an address (no HTTP front) nothing is counted.
    expect((await ask(appEnv, { apiKey: unknownKey() }, from("198.51.100.8"))).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await ask(appEnv, { apiKey: unknownKey() })).status).toBe(401);
  });

  it("are the only ones counted: a stale key beside a valid one, and a malformed key, are not", async () => {
    const project = await createTestProject("Stale second key");
    const client = from("198.51.100.9");
    await earlyInLimiterWindow();
    for (let i = 0; i < 5; i++) expect((await ask(env, { apiKey: project.apiKey, bearer: unknownKey() }, client)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await ask(env, { apiKey: "not-a-key" }, client)).status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await ask(env, { apiKey: unknownKey() }, client)).status).toBe(401);
    expect((await ask(env, { apiKey: unknownKey() }, client)).status).toBe(429);
  });

  it("are counted per IPv6 /64, and per calling Worker's zone for requests from Workers", async () => {
    await earlyInLimiterWindow();
    for (const address of ["2001:db8:1:2::1", "2001:0db8:0001:0002:ffff::9", "2001:db8:1:2:aaaa:bbbb:cccc:dddd"]) {
      expect((await ask(env, { apiKey: unknownKey() }, from(address))).status).toBe(401);
    }
    expect((await ask(env, { apiKey: unknownKey() }, from("2001:db8:1:2::77"))).status).toBe(429);
    expect((await ask(env, { apiKey: unknownKey() }, from("2001:db8:1:3::1"))).status).toBe(401);

    const fromWorker = (zone: string) => ({ "cf-connecting-ip": "2a06:98c0:3600::103", "cf-worker": zone });
    for (let i = 0; i < 3; i++) expect((await ask(env, { apiKey: unknownKey() }, fromWorker("guesser.example"))).status).toBe(401);
    expect((await ask(env, { apiKey: unknownKey() }, fromWorker("guesser.example"))).status).toBe(429);
    expect((await ask(env, { apiKey: unknownKey() }, fromWorker("customer.example"))).status).toBe(401);
  });

  it("throttle the API and dashboard sign-in with the error envelope and Retry-After", async () => {
    await earlyInLimiterWindow();
    const apiCall = (address: string) => ({ apiKey: unknownKey(), headers: from(address) });
    for (let i = 0; i < 3; i++) expectEnvelope(await call("/v1/drops", apiCall("203.0.113.20")), 401, "unauthorized");
    const refused = await call("/v1/drops", apiCall("203.0.113.20"));
    expect(expectEnvelope(refused, 429, "rate_limited").message).toContain("unknown keys");
    expect(refused.headers.get("retry-after")).toBe("60");

    const browser = new DashboardClient();
    const signIn = (credential: string) => browser.post("/dashboard/sign-in", { credential, csrf: null }, from("203.0.113.21"));
    for (let i = 0; i < 3; i++) expect((await signIn(unknownKey())).status).toBe(401);
    const page = await signIn(unknownKey());
    expect([page.status, page.headers.get("retry-after")]).toEqual([429, "60"]);
    expect(page.html).toContain("too many unknown keys");
    // The admin token is compared, never looked up: it signs in from there.
    expect((await signIn(TEST_ADMIN_TOKEN)).status).toBe(303);
  });
});

describe("a key that resolves", () => {
  const refuse = async (client: Record<string, string>) => {
    await earlyInLimiterWindow();
    for (let i = 0; i < 3; i++) expectEnvelope(await call("/v1/drops", { apiKey: unknownKey(), headers: client }), 401, "unauthorized");
    expectEnvelope(await call("/v1/drops", { apiKey: unknownKey(), headers: client }), 429, "rate_limited");
  };

  it("is never refused for the unknown keys others sent from its address, nor is the admin sign-in", async () => {
    // Serverless platforms share egress addresses: a stranger's guesses must not lock a project out.
    const shared = from("198.51.100.30");
    await refuse(shared);
    const fresh = await createTestProject("Created after its address was refused");
    expect((await call("/v1/drops", { apiKey: fresh.apiKey, headers: shared })).status).toBe(200);
    expect((await call("/v1/project-wallet", { secretKey: fresh.secretKey, headers: shared })).status).toBe(200);

    const browser = new DashboardClient();
    const signIn = (credential: string) => browser.post("/dashboard/sign-in", { credential, csrf: null }, shared);
    expect((await signIn(TEST_ADMIN_TOKEN)).status).toBe(303);
    expect((await signIn(fresh.secretKey)).status).toBe(303);
    // The guesses themselves are still refused.
    expect((await signIn(unknownKey())).status).toBe(429);
    expectEnvelope(await call("/v1/drops", { apiKey: unknownKey(), headers: shared }), 429, "rate_limited");
  });

  it("waits like an unknown one only while KV holds no entry for it, until a lookup from elsewhere writes one", async () => {
    const shared = from("198.51.100.31");
    const project = await createTestProject("Entry lost");
    // As when the write at creation failed.
    await env.KV.delete(keyCacheKey(await sha256Hex(project.apiKey)));
    await refuse(shared);
    expectEnvelope(await call("/v1/drops", { apiKey: project.apiKey, headers: shared }), 429, "rate_limited");
    expect((await call("/v1/drops", { apiKey: project.apiKey, headers: from("198.51.100.32") })).status).toBe(200);
    expect(await env.KV.get(keyCacheKey(await sha256Hex(project.apiKey)), "json")).toMatchObject({ keyId: project.apiKeyId, revoked: false });
    expect((await call("/v1/drops", { apiKey: project.apiKey, headers: shared })).status).toBe(200);
  });
});

describe("the unknown-key count", () => {
  it("names IPv4 and IPv4-mapped clients by address, IPv6 ones by their /64, Worker subrequests by zone", () => {
    const clientOf = (headers: Record<string, string>) => unknownKeyClient((name) => headers[name]);
    expect(clientOf({ "cf-connecting-ip": "203.0.113.5" })).toBe("203.0.113.5");
    expect(clientOf({ "cf-connecting-ip": "::ffff:203.0.113.5" })).toBe("::ffff:203.0.113.5");
    expect(clientOf({ "cf-connecting-ip": "2001:0DB8:0:0001::1" })).toBe("2001:db8:0:1::/64");
    expect(clientOf({ "cf-connecting-ip": "::1" })).toBe("0:0:0:0::/64");
    expect(clientOf({ "cf-connecting-ip": "2a06:98c0:3600::103", "cf-worker": "shop.example" })).toBe("worker:shop.example");
    // The header a client could add elsewhere means nothing but from Cloudflare's Workers address.
    expect(clientOf({ "cf-connecting-ip": "203.0.113.5", "cf-worker": "shop.example" })).toBe("203.0.113.5");
    expect(clientOf({})).toBeNull();
  });

  it("counts nothing, and refuses nothing, when the limiter cannot be reached", async () => {
    const broken = { UNKNOWN_KEY_LIMITER: { limit: () => Promise.reject(new Error("limiter unavailable")) } };
    await expect(countUnknownKey(broken, "203.0.113.99")).resolves.toBeUndefined();
  });
});
