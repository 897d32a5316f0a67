import { env } from "cloudflare:workers";
import { mnemonicToAccount } from "viem/accounts";
import { call } from "./http";
import { registerSecret } from "./secret-scan";

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
  // From here on these must never show up again in a response or a log line.
  registerSecret(api.body.key, "plain API key");
  registerSecret(secret.body.key, "plain secret key");
  const row = await env.DB.prepare("select wallet_index from projects where id = ?").bind(project.body.id).first<{ wallet_index: number }>();
  const privateKey = mnemonicToAccount(env.WALLET_MNEMONIC, { addressIndex: row!.wallet_index }).getHdKey().privateKey!;
  registerSecret([...privateKey].map((b) => b.toString(16).padStart(2, "0")).join(""), "project wallet private key");
  return {
    ...project.body,
    apiKey: api.body.key,
    secretKey: secret.body.key,
    apiKeyId: api.body.id,
    secretKeyId: secret.body.id,
  };
}
