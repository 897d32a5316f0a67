import { beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { chainClient, dropReadAbi, fund, ownerOf, waitForTransaction } from "../helpers/chain";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";

let project: TestProject;
const recipient = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

beforeAll(async () => {
  project = await createTestProject("Lifecycle");
  await fund(project.walletAddress);
});

describe("deploy → claim → read back", () => {
  it("deploys a drop, claims to a recipient and shows the result everywhere", async () => {
    const deployed = await call("/v1/project-wallet/drops/deploy", {
      secretKey: project.secretKey,
      body: {
        name: "Genesis Pass",
        metadataStorageType: "metadata-api",
        defaultTokenMetadata: { name: "Genesis Pass", description: "Default", image: "https://example.com/default.png" },
        totalSupply: 100,
        creatorFeeBps: 500,
      },
    });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
    const { drop, transactions } = deployed.body;
    expect(drop).toMatchObject({ name: "Genesis Pass", symbol: "GP", chainId: 1868, creatorFeeBps: 500, projectId: project.id });
    expect(drop.contractAddress).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(drop.baseUri).toBe(`http://mintyard.test/v1/metadata/1868/${drop.contractAddress}/`);
    expect(drop.blindboxKey).toMatch(/^0x[0-9a-f]{64}$/);
    expect(transactions).toHaveLength(1);
    expect(transactions[0]).toMatchObject({ status: "pending", gasUsed: null, from: project.walletAddress });
    // Known from signing: a pending transaction already names the hash the node holds.
    const pendingHash = transactions[0].transactionHash as `0x${string}`;
    expect(pendingHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await chainClient().getTransaction({ hash: pendingHash })).from.toLowerCase()).toBe(project.walletAddress.toLowerCase());

    // Claim at once, before the deployment is mined: the sequencer orders it after the deploy.
    const claimed = await call("/v1/project-wallet/drops/claim", {
      secretKey: project.secretKey,
      body: {
        contractAddress: drop.contractAddress,
        recipientAddress: recipient,
        quantity: 2,
        overrideMetadata: [{ name: "Pass #1", image: "https://example.com/1.png" }, { name: "Pass #2", attributes: [{ trait_type: "tier", value: "gold" }] }],
      },
    });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
    expect(claimed.body.assets.map((a: { tokenId: string }) => a.tokenId)).toEqual(["1", "2"]);
    expect(claimed.body.assets[0]).toMatchObject({ name: "Pass #1", imageUrl: "https://example.com/1.png", schema: "ERC721", bestListing: null });
    expect(claimed.body.assets[0]).not.toHaveProperty("id");
    expect(claimed.body.assets[0].collection.slug).toBe(`soneium:${drop.contractAddress.toLowerCase()}`);

    const deployTx = await waitForTransaction(transactions[0].id, project.apiKey);
    expect(deployTx).toMatchObject({ status: "confirmed" });
    expect(BigInt(deployTx.totalGasFee)).toBe(BigInt(deployTx.gasUsed) * BigInt(deployTx.gasPrice));
    const claimTx = await waitForTransaction(claimed.body.transactions[0].id, project.apiKey);
    expect(claimTx.status).toBe("confirmed");

    // On chain.
    expect((await ownerOf(drop.contractAddress, 2n)).toLowerCase()).toBe(recipient.toLowerCase());
    const uri = await chainClient().readContract({ address: drop.contractAddress as Address, abi: dropReadAbi, functionName: "tokenURI", args: [1n] });
    expect(uri).toBe(`${drop.baseUri}1`);

    // In the API.
    const asset = await call(`/v1/assets/1868/${drop.contractAddress}/2`, { apiKey: project.apiKey });
    expect(asset.status).toBe(200);
    expect(asset.body).toMatchObject({ tokenId: "2", name: "Pass #2", tokenUri: `${drop.baseUri}2` });
    const owned = await call(`/v1/assets/explore?ownerAddress=${recipient}&contractAddress=${drop.contractAddress}`, { apiKey: project.apiKey });
    expect(owned.body.data.map((a: { tokenId: string }) => a.tokenId).sort()).toEqual(["1", "2"]);
    const metadata = await call(`/v1/metadata/1868/${drop.contractAddress}/2`);
    expect(metadata.body).toMatchObject({ name: "Pass #2", attributes: [{ trait_type: "tier", value: "gold" }] });
    const fallback = await call(`/v1/metadata/1868/${drop.contractAddress}/1`);
    expect(fallback.body).toMatchObject({ name: "Pass #1", image: "https://example.com/1.png" });
    const dropRead = await call(`/v1/drops/${drop.id}`, { apiKey: project.apiKey });
    expect(dropRead.body.id).toBe(drop.id);
  });

  it("rejects bad deploy input before anything is signed", async () => {
    const pendingNonce = () => chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "pending" });
    const recorded = async () => ({
      transactions: (await call("/v1/transactions", { apiKey: project.apiKey })).body.pagination.total as number,
      drops: (await call(`/v1/drops?filter.projectId=$eq:${project.id}`, { apiKey: project.apiKey })).body.meta.totalItems as number,
    });
    const [nonceBefore, recordedBefore] = [await pendingNonce(), await recorded()];
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "x", metadataStorageType: "self-hosted" }, "body.baseUri"],
      // Written on chain as every tokenURI's prefix, for good.
      [{ name: "x", metadataStorageType: "self-hosted", baseUri: "javascript:alert(1)//" }, "body.baseUri"],
      [{ name: "x" }, "body.defaultTokenMetadata"],
      [{ name: "x", defaultTokenMetadata: { name: "x", externalUrl: "data:text/html,<script>alert(1)</script>" } }, "body.defaultTokenMetadata.externalUrl"],
      [{ name: "x", metadataStorageType: "self-hosted", baseUri: "https://e.com/", creatorFeeBps: 10001 }, "body.creatorFeeBps"],
      [{ name: "x", metadataStorageType: "self-hosted", baseUri: "https://e.com/", mode: "gold" }, "body.mode"],
      [{ name: "x", metadataStorageType: "self-hosted", baseUri: "https://e.com/", whitelist: `${recipient},1,0\nnope,1,0` }, "body.whitelist"],
      [{ name: "x", metadataStorageType: "self-hosted", baseUri: "https://e.com/", colour: "red" }, "body.colour"],
      [{ metadataStorageType: "self-hosted", baseUri: "https://e.com/" }, "body.name"],
      // An empty whitelist must not deploy a drop open to everyone.
      [{ name: "x", metadataStorageType: "self-hosted", baseUri: "https://e.com/", whitelist: "" }, "body.whitelist"],
      [{ name: "x", metadataStorageType: "self-hosted", baseUri: "https://e.com/", whitelist: " \n \n" }, "body.whitelist"],
      // A start before 1970 cannot be a uint40 on chain.
      [{ name: "x", metadataStorageType: "self-hosted", baseUri: "https://e.com/", startTime: "1969-12-31T23:59:59Z" }, "body.startTime"],
      // So small it prints as 0: it must not make the drop free.
      [{ name: "x", metadataStorageType: "self-hosted", baseUri: "https://e.com/", unitPrice: 1e-21 }, "body.unitPrice"],
    ];
    for (const [body, path] of cases) {
      const error = expectEnvelope(await call("/v1/project-wallet/drops/deploy", { secretKey: project.secretKey, body }), 400, "validation_error");
      expect(error.details?.map((d) => d.path), JSON.stringify(body)).toContain(path);
    }
    const whitelist = expectEnvelope(
      await call("/v1/project-wallet/drops/deploy", {
        secretKey: project.secretKey,
        body: { name: "x", metadataStorageType: "self-hosted", baseUri: "https://e.com/", whitelist: `${recipient},1,0\nnope,1,0` },
      }),
      400,
      "validation_error",
    );
    expect(whitelist.message).toContain("line 2");
    expectEnvelope(await call("/v1/project-wallet/drops/deploy", { apiKey: project.apiKey, body: { name: "x" } }), 403, "forbidden");
    expectEnvelope(
      await call("/v1/project-wallet/drops/deploy", { secretKey: project.secretKey, body: { name: "x", chainId: 5, metadataStorageType: "self-hosted", baseUri: "https://e.com/" } }),
      400,
      "unsupported_chain",
    );
    expectEnvelope(
      await call("/v1/project-wallet/drops/deploy", {
        secretKey: project.secretKey,
        body: { name: "x", projectId: crypto.randomUUID(), metadataStorageType: "self-hosted", baseUri: "https://e.com/" },
      }),
      403,
      "forbidden",
    );
    expect(await pendingNonce()).toBe(nonceBefore);
    expect(await recorded()).toEqual(recordedBefore);
  });
});
