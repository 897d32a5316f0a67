// The project dashboard (issue 7): sign-in with the admin token or a secret key, the session
// cookie, CSRF, project isolation, keys created (shown once) and revoked, live transactions.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN } from "../fixtures/secrets";
import { createdKeyOf, DashboardClient, pageText } from "../helpers/dashboard";
import { call } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { registerSecret } from "../helpers/secret-scan";

let a: TestProject;
let b: TestProject;

beforeAll(async () => {
  a = await createTestProject("Dashboard A");
  b = await createTestProject("Dashboard B");
});

async function asAdmin() {
  const client = new DashboardClient();
  await client.signIn(TEST_ADMIN_TOKEN);
  return client;
}

async function asProject(project: TestProject) {
  const client = new DashboardClient();
  await client.signIn(project.secretKey);
  return client;
}

/** Creates a key through the dashboard and returns it as the page showed it (then a registered secret). */
async function createKeyThroughDashboard(client: DashboardClient, projectId: string, kind: "api" | "secret") {
  const posted = await client.post(`/dashboard/projects/${projectId}/keys`, { kind });
  expect(posted.status, posted.html).toBe(303);
  expect(posted.location).toBe(`/dashboard/projects/${projectId}`);
  expect(posted.html).not.toMatch(/[as]k_[0-9A-Za-z]{40}/);
  const page = await client.get(posted.location!);
  expect(page.status).toBe(200);
  const match = createdKeyOf(page.html);
  expect(match, "the new key is on the page").not.toBeNull();
  const [, id, key] = match!;
  expect(key).toMatch(kind === "api" ? /^ak_[0-9A-Za-z]{40}$/ : /^sk_[0-9A-Za-z]{40}$/);
  registerSecret(key!, `plain ${kind} key created on the dashboard`);
  return { id: id!, key: key! };
}

describe("dashboard sign-in", () => {
  it("serves the sign-in page with a strict CSP and no caching", async () => {
    const page = await new DashboardClient().get("/dashboard");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.html.startsWith("<!doctype html>")).toBe(true);
    expect(page.html).toContain('<label for="credential">');
    expect(page.headers.get("cache-control")).toBe("no-store");
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'nonce-[A-Za-z0-9_-]+'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(page.headers.get("x-request-id")).toBeTruthy();
  });

  it("is not part of the OpenAPI document", async () => {
    const { body } = await call("/openapi.json");
    expect(Object.keys(body.paths).filter((path) => path.startsWith("/dashboard"))).toEqual([]);
  });

  it("refuses a wrong credential with 401 and says why on the page", async () => {
    const client = new DashboardClient();
    for (const credential of ["not-the-token", "sk_0123456789abcdefghijABCDEFGHIJ0123456789", `${TEST_ADMIN_TOKEN}x`]) {
      const page = await client.post("/dashboard/sign-in", { credential, csrf: null });
      expect(page.status).toBe(401);
      expect(pageText(page.html)).toContain("Error: invalid admin token or secret key");
      expect(page.html).toContain('role="alert"');
      expect(page.html).not.toContain(credential);
      expect(page.setCookies).toEqual([]);
    }
    const empty = await client.post("/dashboard/sign-in", { credential: "", csrf: null });
    expect(empty.status).toBe(401);
    expect(pageText(empty.html)).toContain("enter the admin token or a project's secret key");
    expect(client.cookies.size).toBe(0);
  });

  it("refuses an API key with 403: only secret keys manage a project", async () => {
    const page = await new DashboardClient().post("/dashboard/sign-in", { credential: a.apiKey, csrf: null });
    expect(page.status).toBe(403);
    expect(pageText(page.html)).toContain("an API key cannot sign in to the dashboard");
    expect(page.setCookies).toEqual([]);
  });

  it("signs the admin in with an HttpOnly, SameSite=Strict session cookie that holds no credential", async () => {
    const client = new DashboardClient();
    const posted = await client.post("/dashboard/sign-in", { credential: TEST_ADMIN_TOKEN, csrf: null });
    expect(posted.status).toBe(303);
    expect(posted.location).toBe("/dashboard");
    const cookie = posted.setCookies.find((line) => line.startsWith("mintyard_session="))!;
    expect(cookie).toBeDefined();
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Strict/);
    expect(cookie).toMatch(/; Path=\/dashboard/);
    expect(cookie).toMatch(/; Max-Age=3600/);
    expect(cookie).not.toMatch(/; Secure/); // plain http (a local run)
    const value = client.cookies.get("mintyard_session")!;
    expect(value).not.toContain(TEST_ADMIN_TOKEN);
    const claims = JSON.parse(atob(value.split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/")));
    expect(claims).toEqual({ kind: "admin", sid: expect.any(String), exp: expect.any(Number) });
    expect(claims.exp - Date.now() / 1000).toBeLessThanOrEqual(3600);

    const home = await client.follow(posted);
    expect(home.status).toBe(200);
    expect(pageText(home.html)).toContain("Signed in as admin");
    expect(pageText(home.html)).toContain("Dashboard A");
  });

  it("marks the cookie Secure over https", async () => {
    const client = new DashboardClient("https://mintyard.test");
    const posted = await client.post("/dashboard/sign-in", { credential: TEST_ADMIN_TOKEN, csrf: null });
    expect(posted.status).toBe(303);
    expect(posted.setCookies.find((line) => line.startsWith("mintyard_session="))).toMatch(/; Secure/);
  });

  it("tells browsers over https to use https for a year, and says nothing over plain http", async () => {
    const secure = await new DashboardClient("https://mintyard.test").get("/dashboard");
    expect(secure.headers.get("strict-transport-security")).toBe("max-age=31536000");
    // Over http a browser ignores it, and a local `npm run dev` must not pin localhost to https.
    expect((await new DashboardClient().get("/dashboard")).headers.get("strict-transport-security")).toBeNull();
  });

  it("signs a secret key in to its own project", async () => {
    const client = new DashboardClient();
    const posted = await client.post("/dashboard/sign-in", { credential: a.secretKey, csrf: null });
    expect(posted.status).toBe(303);
    expect(posted.location).toBe(`/dashboard/projects/${a.id}`);
    const claims = JSON.parse(atob(client.cookies.get("mintyard_session")!.split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/")));
    expect(claims).toMatchObject({ kind: "project", projectId: a.id, keyId: a.secretKeyId });
    const page = await client.follow(posted);
    expect(page.status).toBe(200);
    const text = pageText(page.html);
    expect(text).toContain("Dashboard A");
    expect(text).toContain(a.walletAddress);
    expect(text).toContain("0 ETH"); // the wallet's balance on the test chain
    expect(text).toContain("No drops yet.");
    expect(text).toContain("(this session)");
    // The landing page sends a project session to its project.
    const home = await client.get("/dashboard");
    expect(home.status).toBe(303);
    expect(home.location).toBe(`/dashboard/projects/${a.id}`);
  });

  it("ignores a tampered or forged session cookie", async () => {
    const client = await asAdmin();
    const [payload, signature] = client.cookies.get("mintyard_session")!.split(".");
    const forged = btoa(JSON.stringify({ kind: "project", projectId: b.id, keyId: b.secretKeyId, sid: "x", exp: 9_999_999_999 }))
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    for (const value of [`${forged}.${signature}`, `${payload}.${signature!.slice(0, -2)}AA`, "garbage", `${payload}`]) {
      client.cookies.set("mintyard_session", value);
      const page = await client.get(`/dashboard/projects/${b.id}`);
      expect(page.status).toBe(401);
      expect(pageText(page.html)).toContain("sign in to continue");
      expect(page.setCookies.some((line) => line.startsWith("mintyard_session=;") && /Max-Age=0/.test(line))).toBe(true);
    }
    client.cookies.set("mintyard_session", "garbage");
    const home = await client.get("/dashboard");
    expect(home.status).toBe(200);
    expect(pageText(home.html)).toContain("Your session has ended: sign in again.");
  });
});

describe("dashboard as admin", () => {
  it("lists projects, creates one (PRG) and shows it", async () => {
    const client = await asAdmin();
    const posted = await client.post("/dashboard/projects", { name: "Created on the dashboard" });
    expect(posted.status, posted.html).toBe(303);
    const projectId = /^\/dashboard\/projects\/([0-9a-f-]{36})$/.exec(posted.location!)![1]!;
    const page = await client.follow(posted);
    expect(page.status).toBe(200);
    const text = pageText(page.html);
    expect(text).toContain("Project “Created on the dashboard” created.");
    expect(text).toContain(projectId);
    // The flash is gone after one view.
    expect(pageText((await client.get(posted.location!)).html)).not.toContain("created.");
    const list = await client.get("/dashboard");
    expect(pageText(list.html)).toContain("Created on the dashboard");
    const { body } = await call("/v1/admin/projects", { admin: true });
    expect(body.data.map((p: { id: string }) => p.id)).toContain(projectId);
  });

  it("shows the service's validation message and keeps the input", async () => {
    const client = await asAdmin();
    const page = await client.post("/dashboard/projects", { name: "   " });
    expect(page.status).toBe(400);
    expect(pageText(page.html)).toContain("Error: name: must be 1 to 200 characters");
    const tooLong = await client.post("/dashboard/projects", { name: "x".repeat(201) });
    expect(tooLong.status).toBe(400);
    expect(tooLong.html).toContain(`value="${"x".repeat(201)}"`);
  });

  it("escapes user data", async () => {
    const client = await asAdmin();
    const name = `<script>alert("x")</script> & <b>bold</b>`;
    const posted = await client.post("/dashboard/projects", { name });
    const page = await client.follow(posted);
    expect(page.html).not.toContain("<script>alert");
    expect(page.html).not.toContain("<b>bold</b>");
    expect(page.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;");
  });

  it("manages any project's keys", async () => {
    const client = await asAdmin();
    const { id, key } = await createKeyThroughDashboard(client, b.id, "api");
    expect((await call("/v1/drops", { apiKey: key })).status).toBe(200);
    const revoked = await client.post(`/dashboard/projects/${b.id}/keys/${id}/revoke`);
    expect(revoked.status).toBe(303);
    expect((await call("/v1/drops", { apiKey: key })).status).toBe(401);
  });

  it("answers an unknown project or page with a 404 page", async () => {
    const client = await asAdmin();
    const missing = await client.get(`/dashboard/projects/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(pageText(missing.html)).toContain("project not found");
    const nowhere = await client.get("/dashboard/nowhere");
    expect(nowhere.status).toBe(404);
    expect(nowhere.headers.get("content-type")).toMatch(/^text\/html/);
  });
});

describe("dashboard keys", () => {
  it("shows a new key once, and the key works on the API", async () => {
    const client = await asProject(a);
    const { id, key } = await createKeyThroughDashboard(client, a.id, "secret");
    // Shown once: a reload (the flash cookie was cleared) does not show it again.
    const again = await client.get(`/dashboard/projects/${a.id}`);
    expect(again.html).not.toContain(key);
    expect(createdKeyOf(again.html)).toBeNull();
    expect(again.html).toContain(`data-key-id="${id}"`);
    expect(client.cookies.has("mintyard_flash")).toBe(false);
    // Neither cookie holds the key.
    for (const value of client.cookies.values()) expect(value).not.toContain(key);
    expect((await call("/v1/project-wallet", { secretKey: key })).status).toBe(200);
  });

  it("shows a new key to one page only: its flash cookie sent again shows a notice instead", async () => {
    const client = await asProject(a);
    const posted = await client.post(`/dashboard/projects/${a.id}/keys`, { kind: "api" });
    expect(posted.status, posted.html).toBe(303);
    const flash = client.cookies.get("mintyard_flash")!;
    const [first, second] = await Promise.all([client.get(posted.location!), client.get(posted.location!)]);
    // Two pages racing for one flash: one shows the key.
    const shown = [first, second].map((page) => createdKeyOf(page.html)).filter((match) => match !== null);
    expect(shown).toHaveLength(1);
    const key = shown[0]![2]!;
    registerSecret(key, "plain API key created on the dashboard");
    // Replayed within the cookie's 60 s: still sealed to this session, still fresh, and no key.
    client.cookies.set("mintyard_flash", flash);
    const replayed = await client.get(posted.location!);
    expect(replayed.status).toBe(200);
    expect(createdKeyOf(replayed.html)).toBeNull();
    expect(replayed.html).not.toContain(key);
    expect(pageText(replayed.html)).toContain("This key was shown once already and is not shown again");
    expect((await call("/v1/drops", { apiKey: key })).status).toBe(200);
  });

  it("revokes a key: the API refuses it at once", async () => {
    const client = await asProject(a);
    const { id, key } = await createKeyThroughDashboard(client, a.id, "api");
    expect((await call("/v1/drops", { apiKey: key })).status).toBe(200); // now cached in KV
    const posted = await client.post(`/dashboard/projects/${a.id}/keys/${id}/revoke`);
    expect(posted.status).toBe(303);
    const page = await client.follow(posted);
    expect(pageText(page.html)).toMatch(/API key ak_\w{6}… revoked\./);
    expect(pageText(page.html)).toMatch(/revoked \d{4}-\d\d-\d\dT/);
    expect((await call("/v1/drops", { apiKey: key })).status).toBe(401);
  });

  it("rejects an unknown key kind with the validation message", async () => {
    const client = await asProject(a);
    const page = await client.post(`/dashboard/projects/${a.id}/keys`, { kind: "root" });
    expect(page.status).toBe(400);
    expect(pageText(page.html)).toContain('Error: kind: must be "api" or "secret"');
  });

  it("signs the session out when it revokes its own secret key", async () => {
    const admin = await asAdmin();
    const { key } = await createKeyThroughDashboard(admin, a.id, "secret");
    const client = new DashboardClient();
    await client.signIn(key);
    const keyId = (await env.DB.prepare("select id from api_keys where prefix = ?").bind(key.slice(0, 9)).first<{ id: string }>())!.id;
    const posted = await client.post(`/dashboard/projects/${a.id}/keys/${keyId}/revoke`);
    expect(posted.status).toBe(303);
    expect(posted.location).toBe("/dashboard?m=key-revoked");
    const page = await client.follow(posted);
    expect(pageText(page.html)).toContain("You revoked the secret key this session was opened with");
    expect(client.cookies.has("mintyard_session")).toBe(false);
  });

  it("ends a project session when its secret key is revoked elsewhere", async () => {
    const admin = await asAdmin();
    const { id, key } = await createKeyThroughDashboard(admin, a.id, "secret");
    const client = new DashboardClient();
    await client.signIn(key);
    const stolenCookie = client.cookies.get("mintyard_session")!;
    expect((await call(`/v1/admin/keys/${id}`, { method: "DELETE", admin: true })).status).toBe(204);
    client.cookies.set("mintyard_session", stolenCookie);
    const page = await client.get(`/dashboard/projects/${a.id}`);
    expect(page.status).toBe(401);
  });
});

describe("dashboard isolation", () => {
  it("a secret key of A cannot see B", async () => {
    const client = await asProject(a);
    const page = await client.get(`/dashboard/projects/${b.id}`);
    expect(page.status).toBe(404);
    expect(pageText(page.html)).toContain("project not found");
    expect(page.html).not.toContain("Dashboard B");
    expect(page.html).not.toContain(b.walletAddress);
    const json = await client.get(`/dashboard/projects/${b.id}/transactions.json`);
    expect(json.status).toBe(404);
    expect(JSON.parse(json.html).error.code).toBe("not_found");
  });

  it("a secret key of A cannot create or revoke B's keys", async () => {
    const client = await asProject(a);
    const viaB = await client.post(`/dashboard/projects/${b.id}/keys/${b.apiKeyId}/revoke`);
    expect(viaB.status).toBe(404);
    expect(pageText(viaB.html)).toContain("project not found");
    const viaA = await client.post(`/dashboard/projects/${a.id}/keys/${b.apiKeyId}/revoke`);
    expect(viaA.status).toBe(404);
    expect(pageText(viaA.html)).toContain("Error: key not found");
    const create = await client.post(`/dashboard/projects/${b.id}/keys`, { kind: "secret" });
    expect(create.status).toBe(404);
    expect((await call("/v1/drops", { apiKey: b.apiKey })).status).toBe(200);
    const { body } = await call(`/v1/admin/projects/${b.id}/keys`, { admin: true });
    const originals = body.data.filter((key: { id: string }) => key.id === b.apiKeyId || key.id === b.secretKeyId);
    expect(originals.map((key: { revokedAt: string | null }) => key.revokedAt)).toEqual([null, null]);
    expect(body.data.filter((key: { kind: string }) => key.kind === "secret")).toHaveLength(1);
  });

  it("a secret key cannot list or create projects", async () => {
    const client = await asProject(a);
    const projectNames = async () => (await call("/v1/admin/projects", { admin: true })).body.data.map((p: { name: string }) => p.name) as string[];
    const namesBefore = await projectNames();
    const created = await client.post("/dashboard/projects", { name: "Not allowed" });
    expect(created.status).toBe(403);
    expect(pageText(created.html)).toContain("only the admin can create projects");
    expect(await projectNames()).toEqual(namesBefore);
    // The dashboard's home, the project list for the admin, sends a project session to its own page.
    const home = await client.get("/dashboard");
    expect([home.status, home.location]).toEqual([303, `/dashboard/projects/${a.id}`]);
  });
});

describe("dashboard CSRF and sign-out", () => {
  it("requires the session's CSRF token on every form", async () => {
    const client = await asAdmin();
    const projectsBefore = (await call("/v1/admin/projects", { admin: true })).body.data.length;
    const missing = await client.post("/dashboard/projects", { name: "csrf", csrf: null });
    expect(missing.status).toBe(403);
    expect(pageText(missing.html)).toContain("missing or invalid CSRF token");
    const other = await asAdmin(); // another session's token
    const foreign = await client.post("/dashboard/projects", { name: "csrf", csrf: other.csrf! });
    expect(foreign.status).toBe(403);
    const wrong = await client.post(`/dashboard/projects/${a.id}/keys/${a.apiKeyId}/revoke`, { csrf: "AAAA" });
    expect(wrong.status).toBe(403);
    expect((await call("/v1/admin/projects", { admin: true })).body.data.length).toBe(projectsBefore);
    expect((await call("/v1/drops", { apiKey: a.apiKey })).status).toBe(200);
  });

  it("refuses cross-origin form posts, sign-in included", async () => {
    const client = await asAdmin();
    const page = await client.post("/dashboard/projects", { name: "cross" }, { origin: "https://evil.example" });
    expect(page.status).toBe(403);
    const names = (await call("/v1/admin/projects", { admin: true })).body.data.map((p: { name: string }) => p.name);
    expect(names).not.toContain("cross");
    const signIn = await new DashboardClient().post("/dashboard/sign-in", { credential: TEST_ADMIN_TOKEN, csrf: null }, { origin: "https://evil.example" });
    expect(signIn.status).toBe(403);
    expect(signIn.setCookies).toEqual([]);
    const sameOrigin = await client.post("/dashboard/projects", { name: "same origin" }, { origin: "http://mintyard.test" });
    expect(sameOrigin.status).toBe(303);
  });

  it("answers a form body it cannot read (multipart without a boundary) with a 400 page, not a 500", async () => {
    const malformed = { "content-type": "multipart/form-data" };
    const signIn = await new DashboardClient().post("/dashboard/sign-in", { credential: TEST_ADMIN_TOKEN, csrf: null }, malformed);
    expect(signIn.status, signIn.html).toBe(400);
    expect(signIn.html).toContain('action="/dashboard/sign-in"');
    expect(pageText(signIn.html)).toContain("the form could not be read");
    expect(signIn.setCookies).toEqual([]);

    const client = await asAdmin();
    const projectsBefore = (await call("/v1/admin/projects", { admin: true })).body.data.length;
    const created = await client.post("/dashboard/projects", { name: "unreadable" }, malformed);
    expect(created.status, created.html).toBe(400);
    expect(pageText(created.html)).toContain("Invalid request");
    expect(pageText(created.html)).toContain("the form could not be read");
    expect((await call("/v1/admin/projects", { admin: true })).body.data.length).toBe(projectsBefore);
  });

  it("a POST without a session shows the sign-in page with 401", async () => {
    const page = await new DashboardClient().post(`/dashboard/projects/${a.id}/keys`, { kind: "api", csrf: "x" });
    expect(page.status).toBe(401);
    expect(page.html).toContain('action="/dashboard/sign-in"');
  });

  it("signs out: the cookie is cleared and a replayed copy is refused", async () => {
    const client = await asAdmin();
    const copy = client.cookies.get("mintyard_session")!;
    const noToken = await client.post("/dashboard/sign-out", { csrf: null });
    expect(noToken.status).toBe(403);
    const posted = await client.post("/dashboard/sign-out");
    expect(posted.status).toBe(303);
    expect(posted.location).toBe("/dashboard?m=signed-out");
    expect(posted.setCookies.find((line) => line.startsWith("mintyard_session="))).toMatch(/Max-Age=0/);
    expect(client.cookies.has("mintyard_session")).toBe(false);
    const page = await client.follow(posted);
    expect(pageText(page.html)).toContain("You are signed out.");
    client.cookies.set("mintyard_session", copy);
    expect((await client.get(`/dashboard/projects/${a.id}`)).status).toBe(401);
  });
});

describe("dashboard transactions", () => {
  it("lists the project's transactions and serves their live status as JSON", async () => {
    const id = crypto.randomUUID();
    const now = Date.now();
    await env.DB.prepare(
      "insert into transactions (id, job_id, project_id, chain_id, status, kind, from_address, to_address, value, data, transaction_hash, created_at, updated_at) values (?, ?, ?, 1868, 'pending', 'transfer', ?, ?, '0', '0x', ?, ?, ?)",
    )
      .bind(id, crypto.randomUUID(), a.id, a.walletAddress.toLowerCase(), a.walletAddress.toLowerCase(), `0x${"cd".repeat(32)}`, now, now)
      .run();
    const client = await asProject(a);
    const page = await client.get(`/dashboard/projects/${a.id}`);
    expect(page.html).toContain(`<tr data-tx-id="${id}">`);
    expect(page.html).toMatch(new RegExp(`data-tx-id="${id}">[\\s\\S]*?data-status="pending"`));
    expect(page.html).toContain(`data-endpoint="/dashboard/projects/${a.id}/transactions.json"`);
    const nonce = /script-src 'nonce-([^']+)'/.exec(page.headers.get("content-security-policy")!)![1];
    expect(page.html).toContain(`<script nonce="${nonce}">`);

    await env.DB.prepare("update transactions set status = 'confirmed', transaction_hash = ?, gas_used = '21000', gas_price = '1', total_gas_fee = '21000', updated_at = ? where id = ?")
      .bind(`0x${"ab".repeat(32)}`, now + 1000, id)
      .run();
    const json = await client.get(`/dashboard/projects/${a.id}/transactions.json`);
    expect(json.status).toBe(200);
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
    const body = JSON.parse(json.html);
    expect(body.total).toBeGreaterThanOrEqual(1);
    expect(body.data.find((tx: { id: string }) => tx.id === id)).toMatchObject({ status: "confirmed", transactionHash: `0x${"ab".repeat(32)}`, chainId: 1868 });

    const anonymous = await new DashboardClient().get(`/dashboard/projects/${a.id}/transactions.json`);
    expect(anonymous.status).toBe(401);
    expect(JSON.parse(anonymous.html).error.code).toBe("unauthorized");
  });
});
