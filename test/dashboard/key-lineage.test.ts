// Keys record the secret key whose dashboard session created them, and a key can be revoked with
// every key it created, transitively (decision 110): after a secret key leaks, the keys made with
// it go too.
import { describe, expect, it } from "vitest";
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
  });

  it("shows who created each key in the dashboard and revokes one with the keys it created there", async () => {
    const { project, root, rootSession, child, sibling, grandchild, byAdmin } = await lineage("Lineage dashboard");
    const page = await rootSession.get(`/dashboard/projects/${project.id}`);
    const rootPrefix = (await keyById(project, root)).prefix;
    expect(page.html).toMatch(new RegExp(`data-key-id="${child.id}">.*?<code>${rootPrefix}…</code>`, "s"));
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
    const tallied = await admin.follow(await admin.post(`/dashboard/projects/${other.id}/keys/${await secretKeyId(other)}/revoke`, { descendants: "on" }));
    expect(pageText(tallied.html)).toMatch(/Secret key sk_\w{6}… revoked, with 2 keys it created\./);
  });
});
