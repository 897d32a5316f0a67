// Keys record the secret key whose dashboard session created them, and a key can be revoked with
// every key it created, transitively (decision 110): after a secret key leaks, the keys made with
// it go too.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { serviceContext } from "../../src/services/context";
import { createKey } from "../../src/services/projects";
import { TEST_ADMIN_TOKEN } from "../fixtures/secrets";
import { createdKeyOf, DashboardClient, pageText } from "../helpers/dashboard";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { registerSecret } from "../helpers/secret-scan";

interface Key {
  id: string;
  prefix: string;
  revokedAt: string | null;
  createdByKeyId: string | null;
}

async function signedIn(credential: string) {
  const client = new DashboardClient();
  await client.signIn(credential);
  return client;
}

async function dashboardKey(client: DashboardClient, projectId: string, kind: "api" | "secret") {
  const posted = await client.post(`/dashboard/projects/${projectId}/keys`, { kind });
  expect(posted.status, posted.html).toBe(303);
  const [, id, key] = createdKeyOf((await client.follow(posted)).html)!;
  registerSecret(key!, `plain ${kind} key created on the dashboard`);
  return { id: id!, key: key! };
}

const keysOf = async (project: TestProject) => (await call(`/v1/admin/projects/${project.id}/keys`, { admin: true })).body.data as Key[];
const keyById = async (project: TestProject, id: string) => (await keysOf(project)).find((key) => key.id === id)!;
const secretKeyId = async (project: TestProject) => (await keysOf(project)).find((key) => project.secretKey.startsWith(key.prefix))!.id;
const works = async (key: { key: string }) => (await call("/v1/drops", key.key.startsWith("sk_") ? { secretKey: key.key } : { apiKey: key.key })).status === 200;

/** The project's secret key S created child (secret) and sibling (api); child's session created grandchild. */
async function lineage(name: string) {
  const project = await createTestProject(name);
  const root = await secretKeyId(project);
  const rootSession = await signedIn(project.secretKey);
  const child = await dashboardKey(rootSession, project.id, "secret");
  const sibling = await dashboardKey(rootSession, project.id, "api");
  const grandchild = await dashboardKey(await signedIn(child.key), project.id, "api");
  const byAdmin = await dashboardKey(await signedIn(TEST_ADMIN_TOKEN), project.id, "api");
  return { project, root, rootSession, child, sibling, grandchild, byAdmin };
}

describe("key lineage", () => {
  it("records which key's session created each key, and the admin's as none", async () => {
    const { project, root, child, sibling, grandchild, byAdmin } = await lineage("Lineage");
    expect((await keyById(project, root)).createdByKeyId).toBeNull();
    expect((await keyById(project, child.id)).createdByKeyId).toBe(root);
    expect((await keyById(project, sibling.id)).createdByKeyId).toBe(root);
    expect((await keyById(project, grandchild.id)).createdByKeyId).toBe(child.id);
    expect((await keyById(project, byAdmin.id)).createdByKeyId).toBeNull();
  });

  it("revokes a key alone, or with every key it created through the admin API", async () => {
    const { project, root, child, sibling, grandchild, byAdmin } = await lineage("Lineage revoke");
    for (const key of [child, sibling, grandchild]) expect(await works(key)).toBe(true);

    expectEnvelope(await call(`/v1/admin/keys/${child.id}?withDescendants=yes`, { admin: true, method: "DELETE" }), 400, "validation_error");
    // Alone: the child's own key goes, the grandchild it created stays.
    expect((await call(`/v1/admin/keys/${child.id}`, { admin: true, method: "DELETE" })).status).toBe(204);
    expect([await works(child), await works(grandchild)]).toEqual([false, true]);

    // With descendants, from the root: the rest of its tree, through the revoked child too.
    expect((await call(`/v1/admin/keys/${root}?withDescendants=true`, { admin: true, method: "DELETE" })).status).toBe(204);
    expect([await works({ key: project.secretKey }), await works(sibling), await works(grandchild)]).toEqual([false, false, false]);
    // A key the admin created is nobody's descendant.
    expect(await works(byAdmin)).toBe(true);
    expect((await keyById(project, byAdmin.id)).revokedAt).toBeNull();
    expect((await call(`/v1/admin/keys/${byAdmin.id}?withDescendants=false&cascade=true`, { admin: true, method: "DELETE" })).status).toBe(400);
    expect((await call(`/v1/admin/keys/${byAdmin.id}?withDescendants=false`, { admin: true, method: "DELETE" })).status).toBe(204);
    expect(await works(byAdmin)).toBe(false);
  });

  it("refuses to create a key for a creator that is revoked, not a secret key, or another project's", async () => {
    const { project, root, child, sibling } = await lineage("Lineage creators");
    const other = await createTestProject("Lineage other");
    const ctx = serviceContext(env);
    await call(`/v1/admin/keys/${child.id}`, { admin: true, method: "DELETE" });
    const keysBefore = (await keysOf(project)).length;
    for (const creator of [child.id, sibling.id, await secretKeyId(other)]) {
      await expect(createKey(ctx, project.id, "api", creator)).rejects.toMatchObject({ code: "unauthorized" });
    }
    expect((await keysOf(project)).length).toBe(keysBefore);
    // A live secret key of the project may create one; the insert names it.
    const created = await createKey(ctx, project.id, "api", root);
    registerSecret(created.key, "plain api key created in the lineage test");
    expect((await keyById(project, created.id)).createdByKeyId).toBe(root);
  });

  it("shows who created each key in the dashboard and revokes one with the keys it created there", async () => {
    const { project, root, rootSession, child, sibling, grandchild, byAdmin } = await lineage("Lineage dashboard");
    const page = await rootSession.get(`/dashboard/projects/${project.id}`);
    const rootPrefix = (await keyById(project, root)).prefix;
    const rowOf = (id: string) => new RegExp(`<tr data-key-id="${id}">(.*?)</tr>`, "s").exec(page.html)![1]!;
    const createdByCell = (id: string) => [...rowOf(id).matchAll(/<td>(.*?)<\/td>/gs)][3]![1];
    expect(createdByCell(child.id)).toContain(`<code>${rootPrefix}…</code>`);
    expect(createdByCell(grandchild.id)).toContain(`<code>${(await keyById(project, child.id)).prefix}…</code>`);
    expect(createdByCell(root)).toContain("admin or not recorded");
    // Three live keys descend from the root (child, sibling, grandchild); one from the child.
    expect(pageText(page.html)).toContain("Revoke with the 3 keys it created");
    expect(pageText(page.html)).toContain("Revoke with the 1 key it created");

    // The child's own session revokes the child with its grandchild: that session ends with it.
    const childSession = await signedIn(child.key);
    const posted = await childSession.post(`/dashboard/projects/${project.id}/keys/${child.id}/revoke`, { descendants: "on" });
    expect(posted.location).toBe("/dashboard?m=key-revoked");
    expect([await works(child), await works(grandchild), await works(sibling)]).toEqual([false, false, true]);

    // The root's session revokes the root's descendants still live: the sibling.
    const revoked = await rootSession.post(`/dashboard/projects/${project.id}/keys/${root}/revoke`, { descendants: "on" });
    expect(revoked.location).toBe("/dashboard?m=key-revoked");
    expect([await works({ key: project.secretKey }), await works(sibling), await works(byAdmin)]).toEqual([false, false, true]);

    // An admin session sees the tally of what a revocation took with it.
    const admin = await signedIn(TEST_ADMIN_TOKEN);
    const other = await createTestProject("Lineage tally");
    const otherSession = await signedIn(other.secretKey);
    await dashboardKey(otherSession, other.id, "api");
    await dashboardKey(otherSession, other.id, "api");
    const otherRoot = await secretKeyId(other);
    const tallied = await admin.follow(await admin.post(`/dashboard/projects/${other.id}/keys/${otherRoot}/revoke`, { descendants: "on" }));
    expect(pageText(tallied.html)).toMatch(/Secret key sk_\w{6}… revoked, with 2 keys it created\./);
    // Revoked before: the notice says only what went now.
    await dashboardKey(admin, other.id, "api");
    const again = await admin.follow(await admin.post(`/dashboard/projects/${other.id}/keys/${otherRoot}/revoke`, { descendants: "on" }));
    expect(pageText(again.html)).toMatch(/Secret key sk_\w{6}… was already revoked; revoked now: 0 keys it created\./);
  });
});
