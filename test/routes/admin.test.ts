import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { BASE, call, expectEnvelope } from "../helpers/http";
import { createTestProject } from "../helpers/projects";
import { registerSecret } from "../helpers/secret-scan";

describe("admin API", () => {
  it("creates a project with its own HD wallet and returns it checksummed", async () => {
    const first = await call("/v1/admin/projects", { admin: true, body: { name: "Alpha" } });
    const second = await call("/v1/admin/projects", { admin: true, body: { name: "Beta" } });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ name: "Alpha", id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    expect(first.body.walletAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(first.body.walletAddress).not.toBe(first.body.walletAddress.toLowerCase());
    expect(second.body.walletAddress).not.toBe(first.body.walletAddress);

    const list = await call("/v1/admin/projects", { admin: true });
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual(expect.arrayContaining([first.body.id, second.body.id]));
  });

  it("returns a plain key once and stores only its SHA-256", async () => {
    const project = await call("/v1/admin/projects", { admin: true, body: { name: "Keys" } });
    const created = await call(`/v1/admin/projects/${project.body.id}/keys`, { admin: true, body: { kind: "secret" } });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sk_[0-9A-Za-z]{40}$/);
    expect(created.body.prefix).toBe(created.body.key.slice(0, 9));

    const row = await env.DB.prepare("select * from api_keys where id = ?").bind(created.body.id).first<Record<string, string>>();
    expect(Object.values(row!)).not.toContain(created.body.key);
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(created.body.key));
    expect(row!.key_hash).toBe([...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join(""));

    const listed = await call(`/v1/admin/projects/${project.body.id}/keys`, { admin: true });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key);
    expect(listed.body.data[0]).toMatchObject({ id: created.body.id, kind: "secret", revokedAt: null });
  });

  it("rejects missing and wrong admin tokens with 401", async () => {
    expectEnvelope(await call("/v1/admin/projects"), 401, "unauthorized");
    expectEnvelope(await call("/v1/admin/projects", { headers: { authorization: "Bearer nope" } }), 401, "unauthorized");
    const project = await createTestProject();
    // A project's own secret key is not an admin token.
    expectEnvelope(await call("/v1/admin/projects", { secretKey: project.secretKey }), 401, "unauthorized");
  });

  it("validates bodies strictly and names the field", async () => {
    const unknownField = expectEnvelope(await call("/v1/admin/projects", { admin: true, body: { name: "x", extra: 1 } }), 400, "validation_error");
    expect(unknownField.details).toContainEqual({ path: "body.extra", message: "unknown field" });
    const wrongType = expectEnvelope(await call("/v1/admin/projects", { admin: true, body: { name: 5 } }), 400, "validation_error");
    expect(wrongType.details?.[0]?.path).toBe("body.name");
    const malformed = expectEnvelope(await call("/v1/admin/projects", { admin: true, rawBody: "{not json" }), 400, "validation_error");
    expect(malformed.details?.[0]?.path).toBe("body");
    const badKind = expectEnvelope(
      await call("/v1/admin/projects/00000000-0000-4000-8000-000000000000/keys", { admin: true, body: { kind: "root" } }),
      400,
      "validation_error",
    );
    expect(badKind.details?.[0]?.path).toBe("body.kind");
    expectEnvelope(await call("/v1/admin/projects/not-a-uuid/keys", { admin: true, body: { kind: "api" } }), 400, "validation_error");
  });

  it("404s keys for an unknown project and unknown key ids", async () => {
    expectEnvelope(
      await call("/v1/admin/projects/00000000-0000-4000-8000-000000000000/keys", { admin: true, body: { kind: "api" } }),
      404,
      "not_found",
    );
    expectEnvelope(await call("/v1/admin/keys/00000000-0000-4000-8000-000000000000", { admin: true, method: "DELETE" }), 404, "not_found");
  });
});

describe("an ADMIN_TOKEN too short to resist guessing", () => {
  // The dashboard's keys derive from the token and any secret-key holder gets a signed cookie:
  // a short token must serve neither the admin API nor dashboard sessions.
  async function fetchWith(adminToken: string, path: string, init: RequestInit) {
    const ctx = createExecutionContext();
    const response = await worker.fetch(new Request(`${BASE}${path}`, { ...init, redirect: "manual" }), { ...env, ADMIN_TOKEN: adminToken }, ctx);
    await waitOnExecutionContext(ctx);
    return response;
  }
  const signIn = (adminToken: string, credential: string) =>
    fetchWith(adminToken, "/dashboard/sign-in", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ credential }).toString(),
    });

  it("refuses the admin API, even with that exact token, and issues no dashboard session to anyone", async () => {
    const project = await createTestProject("Short admin token");
    const short = "change-me-but-not-long-enough31";
    expect(short.length).toBe(31);

    const admin = await fetchWith(short, "/v1/admin/projects", { headers: { authorization: `Bearer ${short}` } });
    expect(admin.status).toBe(401);
    expect(((await admin.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: "unauthorized", message: expect.stringContaining("32 characters") });
    for (const credential of [short, project.secretKey]) {
      const page = await signIn(short, credential);
      expect(page.status, credential === short ? "admin token" : "secret key").toBe(401);
      expect(page.headers.get("set-cookie") ?? "").not.toMatch(/session/i);
      expect(await page.text()).toContain("32 characters");
    }

    // One character more and both work.
    const enough = `${short}x`;
    expect((await fetchWith(enough, "/v1/admin/projects", { headers: { authorization: `Bearer ${enough}` } })).status).toBe(200);
    const signedIn = await signIn(enough, project.secretKey);
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get("set-cookie")).toBeTruthy();
  });
});

describe("Idempotency-Key on admin POSTs (decision 31)", () => {
  const storedScopes = async (key: string) =>
    (await env.DB.prepare("select project_id from idempotency_keys where key = ?").bind(key).all<{ project_id: string }>()).results.map((row) => row.project_id);

  it("replays POST /v1/admin/projects instead of creating a second project", async () => {
    const key = `create-project-${crypto.randomUUID()}`;
    const name = `Once ${key}`;
    const first = await call("/v1/admin/projects", { admin: true, body: { name }, headers: { "idempotency-key": key } });
    const again = await call("/v1/admin/projects", { admin: true, body: { name }, headers: { "idempotency-key": key } });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const projects = (await call("/v1/admin/projects", { admin: true })).body.data as { name: string }[];
    expect(projects.filter((project) => project.name === name)).toHaveLength(1);

    expectEnvelope(await call("/v1/admin/projects", { admin: true, body: { name: "Another" }, headers: { "idempotency-key": key } }), 409, "idempotency_conflict");
    // Kept apart from every project's keys: no project id is "admin".
    expect(await storedScopes(key)).toEqual(["admin"]);
  });

  it("ignores it on key creation, whose response holds a plain key shown once, and says so", async () => {
    const project = await createTestProject();
    const key = `create-key-${crypto.randomUUID()}`;
    const created = [];
    for (let i = 0; i < 2; i++) {
      const response = await call(`/v1/admin/projects/${project.id}/keys`, { admin: true, body: { kind: "api" }, headers: { "idempotency-key": key } });
      expect(response.status).toBe(201);
      expect(response.headers.get("idempotent-replayed")).toBeNull();
      registerSecret(response.body.key, "plain API key (idempotency test)");
      created.push(response.body.id);
    }
    expect(new Set(created).size).toBe(2);
    expect(await storedScopes(key)).toEqual([]);

    const { body: document } = await call("/openapi.json");
    const headerParams = (operation: { parameters?: { in: string; name: string }[] }) =>
      (operation.parameters ?? []).filter((parameter) => parameter.in === "header").map((parameter) => parameter.name);
    const keyCreation = document.paths["/v1/admin/projects/{id}/keys"].post;
    expect(keyCreation.description).toContain("`Idempotency-Key` is ignored here (decision 31)");
    expect(headerParams(keyCreation)).not.toContain("idempotency-key");
    for (const operation of [document.paths["/v1/admin/projects"].post, document.paths["/v1/admin/collections"].post, document.paths["/v1/webhooks"].post]) {
      expect(headerParams(operation)).toContain("idempotency-key");
      expect(Object.keys(operation.responses)).toContain("409");
    }
  });
});
