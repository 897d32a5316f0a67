import { createRoute, z } from "@hono/zod-openapi";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { onError, onNotFound } from "../src/app";
import { createRouter } from "../src/routes/create-router";
import { requestId } from "../src/routes/middleware/request-id";
import type { Db } from "../src/db/client";
import { checkHealth } from "../src/services/health";
import { TEST_ADMIN_TOKEN, TEST_WALLET_MNEMONIC } from "./fixtures/secrets";
import { call, expectEnvelope } from "./helpers/http";
import { createTestProject } from "./helpers/projects";
import { findSecrets } from "./helpers/secret-scan";
import { drizzle } from "drizzle-orm/d1";
import { sql } from "drizzle-orm";
import { logError, logWarn } from "../src/lib/log";

describe("service basics", () => {
  it("reports D1 and chain RPC health without auth", async () => {
    const { status, body } = await call("/health");
    expect(status).toBe(200);
    expect(body.status).toBe("ok");
    expect(body.db.ok).toBe(true);
    expect(body.chains).toEqual([expect.objectContaining({ chainId: 1868, name: "soneium", ok: true })]);
    expect(BigInt(body.chains[0].blockNumber)).toBeGreaterThanOrEqual(0n);
  });

  it("reports D1 down after 2 s when it never answers (decision 6: each check has a 2 s timeout)", async () => {
    const silentDb = { run: () => new Promise<never>(() => {}) } as unknown as Db;
    // The clock is the test's: the check must still be waiting at 1,999 ms and give up at 2,000.
    // No chain is checked: a real RPC answer racing the fake clock would make the chains' result
    // depend on the machine's load (the test above covers them).
    const withoutChains = { ...env, CHAINS: "{}" };
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    try {
      let answered = false;
      const pending = checkHealth({ env: withoutChains, db: silentDb }).finally(() => (answered = true));
      await vi.advanceTimersByTimeAsync(1_999);
      expect(answered).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      const report = await pending;
      expect(report.status).toBe("down");
      expect(report.db).toEqual({ ok: false, latencyMs: 2_000 });
      expect(report.chains).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("publishes an OpenAPI 3.1 document covering the seed and the design", async () => {
    const { status, body } = await call("/openapi.json");
    expect(status, JSON.stringify(body).slice(0, 2000)).toBe(200);
    expect(body.openapi).toBe("3.1.0");
    const operations = Object.entries(body.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        "POST /v1/project-wallet/drops/claim",
        "POST /v1/project-wallet/mint",
        "POST /v1/project-wallet/transfer",
        "POST /v1/project-wallet/drops/deploy",
        "POST /v1/project-wallet/orders/buy",
        "GET /v1/project-wallet",
        "POST /v1/orders",
        "POST /v1/orders/listings",
        "GET /v1/orders/{orderHash}",
        "GET /v1/assets/explore",
        "GET /v1/assets/{chainId}/{contractAddress}/{tokenId}",
        "GET /v1/drops",
        "GET /v1/drops/{id}",
        "GET /v1/drops/{id}/allowlist/{address}",
        "GET /v1/collections/trending",
        "GET /v1/transactions",
        "GET /v1/transactions/{id}",
        "GET /v1/metadata/{chainId}/{contractAddress}/{tokenId}",
        "GET /health",
        "POST /v1/admin/projects",
        "GET /v1/admin/projects",
        "POST /v1/admin/projects/{id}/keys",
        "DELETE /v1/admin/keys/{keyId}",
        "POST /v1/admin/collections",
        "POST /v1/admin/index",
      ]),
    );
    for (const schema of ["Asset", "Listing", "Collection", "Transaction", "Drop", "TokenMetadata", "TokenAttribute", "DropPage", "AssetPage", "ErrorEnvelope"]) {
      expect(body.components.schemas, schema).toHaveProperty(schema);
    }
    expect(body.components.securitySchemes.ApiKey).toMatchObject({ type: "apiKey", in: "header", name: "x-api-key" });
    expect(body.components.securitySchemes.SecretKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(body.paths["/v1/project-wallet/mint"].post.deprecated).toBe(true);
    expect(body.paths["/v1/drops"].get.responses["401"].content["application/json"].schema.$ref).toBe("#/components/schemas/ErrorEnvelope");
  });

  it("serves the API reference page and its script, loading everything from this origin", async () => {
    const { status, body, headers } = await call("/docs");
    expect(status).toBe(200);
    expect(headers.get("content-type")).toContain("text/html");
    expect(body).toContain("/openapi.json");
    expect(headers.get("content-security-policy")).toContain("default-src 'none'; script-src 'self'");
    const sources = [...(body as string).matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(sources).toEqual(["/docs/swagger-ui/swagger-ui.css", "/openapi.json", "/docs/swagger-ui/swagger-ui-bundle.js", "/docs/init.js"]);

    const init = await call("/docs/init.js");
    expect(init.headers.get("content-type")).toContain("text/javascript");
    expect(init.body).toContain('url: "/openapi.json"');
    expect(init.body).toContain("validatorUrl: null");
    // Swagger UI's files are static assets, which wrangler serves before the Worker; the pool's
    // SELF reaches the Worker only, so test/browser/docs.e2e.ts loads them.
  });

  it("answers unknown routes with the 404 envelope and a request id", async () => {
    const error = expectEnvelope(await call("/v1/nope"), 404, "not_found");
    expect(error.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("echoes a well-formed client request id and replaces a malformed one", async () => {
    expect((await call("/health", { headers: { "x-request-id": "client-123" } })).headers.get("x-request-id")).toBe("client-123");
    const replaced = (await call("/health", { headers: { "x-request-id": "bad id with spaces" } })).headers.get("x-request-id");
    expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("rejects bodies over 1 MiB with 413", async () => {
    const big = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) });
    expectEnvelope(await call("/v1/admin/projects", { admin: true, rawBody: big }), 413, "payload_too_large");
  });

  it("has a secret scanner that recognises every kind of secret (test/setup.ts fails a file on any leak)", async () => {
    const project = await createTestProject("Scanned");
    expect(findSecrets(`x ${TEST_WALLET_MNEMONIC} y`)).toEqual(["WALLET_MNEMONIC"]);
    expect(findSecrets(`Bearer ${TEST_ADMIN_TOKEN}`)).toEqual(["ADMIN_TOKEN"]);
    expect(findSecrets(JSON.stringify({ key: project.secretKey }))).toEqual(["plain secret key"]);
    expect(findSecrets(project.apiKey)).toEqual(["plain API key"]);
    const row = await env.DB.prepare("select wallet_index from projects where id = ?").bind(project.id).first<{ wallet_index: number }>();
    const { mnemonicToAccount } = await import("viem/accounts");
    const key = mnemonicToAccount(TEST_WALLET_MNEMONIC, { addressIndex: row!.wallet_index }).getHdKey().privateKey!;
    const hex = [...key].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(findSecrets(`0x${hex.toUpperCase()}`)).toEqual(["project wallet private key"]);
    expect(findSecrets("nothing to see")).toEqual([]);
  });

  it("logs a failed query as its query and the database's error, never its parameters", async () => {
    const hidden = `blind-box-${crypto.randomUUID()}`;
    const failed = await drizzle(env.DB)
      .run(sql`insert into no_such_table (body) values (${hidden})`)
      .then(() => null, (error: unknown) => error);
    expect(failed).toBeInstanceOf(Error);
    const bare = Object.create(null) as object;
    const lines: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: string) => void lines.push(line));
    vi.spyOn(console, "warn").mockImplementation((line: string) => void lines.push(line));
    logError(env, { where: "test" }, failed);
    logWarn(env, { where: "test" }, failed);
    // Nor does logging a thrown object without a prototype throw.
    logError(env, { where: "test" }, bare);
    vi.restoreAllMocks();
    expect(JSON.parse(lines.pop()!)).toMatchObject({ error: "Error", message: "a non-Error value was thrown" });
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      expect(line).not.toContain(hidden);
      // The database's error first: the one line logWarn keeps names what went wrong.
      expect(JSON.parse(line)).toMatchObject({ error: "DrizzleQueryError", message: expect.stringMatching(/^.*no such table.*failed query: insert into no_such_table/) });
    }
  });

  it("turns an unexpected exception into a bare 500 envelope without its message", async () => {
    const app = createRouter();
    app.use("*", requestId);
    const boom = createRoute({ method: "get", path: "/boom", responses: { 200: { description: "never" } } });
    app.openapi(boom, () => {
      throw new Error(`secret detail ${env.WALLET_MNEMONIC}`);
    });
    app.notFound(onNotFound);
    app.onError(onError);
    const response = await app.request("/boom", {}, env);
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(body.error).toMatchObject({ code: "internal_error", message: "internal error" });
    expect(JSON.stringify(body)).not.toContain("secret detail");
    expect(response.headers.get("x-request-id")).toBeTruthy();
    void z;
  });
});
