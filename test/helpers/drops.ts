import { encodeFunctionData, type Address } from "viem";
import { expect } from "vitest";
import { dropErc721Abi } from "../../src/chain/artifacts/drop-erc721";
import { fund, waitForTransaction } from "./chain";
import { call } from "./http";
import type { TestProject } from "./projects";
import type { freshWallet } from "./wallets";

export interface DeployedDrop {
  id: string;
  contractAddress: string;
  blindboxKey: string;
  metadataRepoId: string | null;
}

/** Funds the project's wallet, deploys a drop through the API and waits until its deploy confirms. */
export async function deployConfirmedDrop(project: TestProject, body: Record<string, unknown>): Promise<DeployedDrop> {
  await fund(project.walletAddress);
  const deployed = await call("/v1/project-wallet/drops/deploy", { secretKey: project.secretKey, body });
  expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
  const settled = await waitForTransaction(deployed.body.transactions[0].id, project.apiKey);
  expect(settled.status).toBe("confirmed");
  return deployed.body.drop;
}

/** Claims through the API and waits until the claim confirms; returns the claimed token ids. */
export async function claimConfirmed(project: TestProject, body: Record<string, unknown>): Promise<string[]> {
  const claimed = await call("/v1/project-wallet/drops/claim", { secretKey: project.secretKey, body });
  expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
  expect((await waitForTransaction(claimed.body.transactions[0].id, project.apiKey)).status).toBe("confirmed");
  return (claimed.body.assets as { tokenId: string }[]).map((asset) => asset.tokenId);
}

/** `setApprovalForAll(operator, approved)` on an NFT contract, sent by `owner`; asserts it succeeded. */
export async function setApprovalForAll(owner: Awaited<ReturnType<typeof freshWallet>>, contract: string, operator: string, approved = true) {
  const receipt = await owner.send({ to: contract, data: encodeFunctionData({ abi: dropErc721Abi, functionName: "setApprovalForAll", args: [operator as Address, approved] }) });
  expect(receipt.status).toBe("success");
}
