// Unknown keys per client address (decision 105). This project allows 3 requests with an unknown
// key per address per 10 s (vitest.config.ts); past that the address is refused for 60 s without
// the KV read and D1 query an unknown key costs, except with keys its isolate resolved moments ago.
import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { anyKey } from "../../src/lib/auth";
import { AppError } from "../../src/lib/errors";
import type { AppBindings } from "../../src/lib/types";
import { DashboardClient } from "../helpers/dashboard";
import { call, expectEnvelope } from "../helpers/http";
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

const ask = async (appEnv: Env, key: string, address?: string) => {
  const response = await app.request("/", { headers: { "x-api-key": key, ...(address ? { "cf-connecting-ip": address } : {}) } }, appEnv);
  return { status: response.status, retryAfter: response.headers.get("retry-after") };
};

describe("requests presenting unknown keys, per client address", () => {
  it("are refused past the limit without reading KV or D1, keys resolved moments ago excepted", async () => {
    const project = await createTestProject("Unknown keys");
    const { env: appEnv, reads } = countingEnv();
    const address = "198.51.100.7";
    expect((await ask(appEnv, project.apiKey, address)).status).toBe(200);

    for (let i = 0; i < 3; i++) expect((await ask(appEnv, unknownKey(), address)).status).toBe(401);
    expect(reads.kv).toBeGreaterThanOrEqual(3);
    expect(await ask(appEnv, unknownKey(), address)).toEqual({ status: 429, retryAfter: "60" });

    reads.kv = reads.d1 = 0;
    expect(await ask(appEnv, unknownKey(), address)).toEqual({ status: 429, retryAfter: "60" });
    // A key never resolved here would need the stores: refused too.
    expect((await ask(appEnv, project.secretKey, address)).status).toBe(429);
    expect(reads).toEqual({ kv: 0, d1: 0 });
    // The key this isolate resolved before the address was refused still works.
    expect((await ask(appEnv, project.apiKey, address)).status).toBe(200);

    // Other addresses are not affected; without an edge in front (no CF-Connecting-IP) nothing is counted.
    expect((await ask(appEnv, unknownKey(), "198.51.100.8")).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await ask(appEnv, unknownKey())).status).toBe(401);
  });

  it("throttle the API and dashboard sign-in with the error envelope and Retry-After", async () => {
    const fromAddress = (address: string) => ({ apiKey: unknownKey(), headers: { "cf-connecting-ip": address } });
    for (let i = 0; i < 3; i++) expectEnvelope(await call("/v1/drops", fromAddress("203.0.113.20")), 401, "unauthorized");
    const refused = await call("/v1/drops", fromAddress("203.0.113.20"));
    expect(expectEnvelope(refused, 429, "rate_limited").message).toContain("unknown keys");
    expect(refused.headers.get("retry-after")).toBe("60");

    const browser = new DashboardClient();
    const signIn = () => browser.post("/dashboard/sign-in", { credential: unknownKey(), csrf: null }, { "cf-connecting-ip": "203.0.113.21" });
    for (let i = 0; i < 3; i++) expect((await signIn()).status).toBe(401);
    const page = await signIn();
    expect(page.status).toBe(429);
    expect(page.html).toContain("too many unknown keys");
  });
});
