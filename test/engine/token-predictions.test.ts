// A claim's response names the ids its mint is expected to produce. A mint made outside the
// service shifts the ids of claims already in flight; once one of them confirms, the service
// predicts from the chain's ids again.
import { encodeFunctionData } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { dropErc721Abi } from "../../src/chain/artifacts/drop-erc721";
import { ownerOf, waitForTransaction } from "../helpers/chain";
import { deployConfirmedDrop } from "../helpers/drops";
import { call } from "../helpers/http";
import { fundedAccount, nextBlock } from "../helpers/indexer";
import { createTestProject, type TestProject } from "../helpers/projects";

const newAddress = () => privateKeyToAccount(generatePrivateKey()).address;

let project: TestProject;
let contract: string;

async function claimAndSettle(recipient: string) {
  const claimed = await call("/v1/project-wallet/drops/claim", {
    secretKey: project.secretKey,
    body: { contractAddress: contract, recipientAddress: recipient, quantity: 1 },
  });
  expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
  const settled = await waitForTransaction(claimed.body.transactions[0].id, project.apiKey);
  expect(settled.status).toBe("confirmed");
  return BigInt(claimed.body.assets[0].tokenId);
}

beforeAll(async () => {
  project = await createTestProject("Predictions");
  contract = (await deployConfirmedDrop(project, { name: "Predicted", metadataStorageType: "self-hosted", baseUri: "https://example.com/p/" })).contractAddress;
});

describe("predicted token ids", () => {
  it("are right again after a public claim made directly on chain", async () => {
    const first = newAddress();
    expect(await claimAndSettle(first)).toBe(1n);
    expect((await ownerOf(contract, 1n)).toLowerCase()).toBe(first.toLowerCase());

    const outsider = await fundedAccount();
    await outsider.send({
      to: contract,
      data: encodeFunctionData({ abi: dropErc721Abi, functionName: "claim", args: [outsider.account.address, 1n, [], 0n, 0n] }),
    });
    await nextBlock();

    // In flight while the outside mint was unknown: predicted 2, minted 3. Its receipt re-anchors.
    const shifted = newAddress();
    await claimAndSettle(shifted);
    expect((await ownerOf(contract, 3n)).toLowerCase()).toBe(shifted.toLowerCase());

    const after = newAddress();
    const predicted = await claimAndSettle(after);
    expect(predicted).toBe(4n);
    expect((await ownerOf(contract, predicted)).toLowerCase()).toBe(after.toLowerCase());
  });
});
