import { describe, expect, it } from "vitest";
import { call, expectEnvelope } from "../helpers/http";
import { earlyInLimiterWindow } from "../helpers/limits";
import { createTestProject } from "../helpers/projects";

// This project runs with a limit of 5 requests per key per 10 s (vitest.config.ts).
describe("per-key rate limit", () => {
  it("answers 429 rate_limited with Retry-After past the limit, per key", async () => {
    const project = await createTestProject("Limited");
    await earlyInLimiterWindow();
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await call("/v1/drops", { apiKey: project.apiKey })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const limited = await call("/v1/drops", { apiKey: project.apiKey });
    expectEnvelope(limited, 429, "rate_limited");
    expect(limited.headers.get("retry-after")).toBe("10");
    // The project's other key has its own budget.
    expect((await call("/v1/drops", { secretKey: project.secretKey })).status).toBe(200);
  });

  it("does not limit admin, health, docs or the public metadata route", async () => {
    // More than the limit of 5 each; an unknown token's metadata is a 404, never a 429.
    for (let i = 0; i < 8; i++) {
      expect((await call("/v1/admin/projects", { admin: true })).status).toBe(200);
      expect((await call("/health")).status).toBe(200);
      expect((await call("/openapi.json")).status).toBe(200);
      expect((await call("/docs")).status).toBe(200);
      expect((await call("/v1/metadata/1868/0x000000000000000000000000000000000000dEaD/1")).status).toBe(404);
    }
  });
});
