import { call } from "./http";

export interface TestProject {
  id: string;
  name: string;
  walletAddress: string;
  apiKey: string;
  secretKey: string;
  apiKeyId: string;
  secretKeyId: string;
}

/** Creates a project with one API key and one secret key through the admin API. */
export async function createTestProject(name = "Test project"): Promise<TestProject> {
  const project = await call("/v1/admin/projects", { admin: true, body: { name } });
  if (project.status !== 201) throw new Error(`create project: ${project.status} ${JSON.stringify(project.body)}`);
  const api = await call(`/v1/admin/projects/${project.body.id}/keys`, { admin: true, body: { kind: "api" } });
  const secret = await call(`/v1/admin/projects/${project.body.id}/keys`, { admin: true, body: { kind: "secret" } });
  return {
    ...project.body,
    apiKey: api.body.key,
    secretKey: secret.body.key,
    apiKeyId: api.body.id,
    secretKeyId: secret.body.id,
  };
}
