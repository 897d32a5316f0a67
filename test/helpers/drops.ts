import { expect } from "vitest";
import { fund, waitForTransaction } from "./chain";
import { call } from "./http";
import type { TestProject } from "./projects";

/** Funds the project's wallet, deploys a drop through the API and waits until its deploy confirms. */
export async function deployConfirmedDrop(project: TestProject, body: Record<string, unknown>): Promise<{ id: string; contractAddress: string }> {
  await fund(project.walletAddress);
  const deployed = await call("/v1/project-wallet/drops/deploy", { secretKey: project.secretKey, body });
  expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
  const settled = await waitForTransaction(deployed.body.transactions[0].id, project.apiKey);
  expect(settled.status).toBe("confirmed");
  return deployed.body.drop;
}
