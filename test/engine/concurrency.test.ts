import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Address } from "viem";
import { chainClient, ownerOf, waitForTransaction } from "../helpers/chain";
import { deployConfirmedDrop } from "../helpers/drops";
import { call } from "../helpers/http";
import { createTestProject } from "../helpers/projects";

const CLAIMS = 50;

describe("concurrent claims", () => {
  it(`${CLAIMS} simultaneous claims get ${CLAIMS} consecutive nonces, the predicted ids, and all confirm`, async () => {
    const project = await createTestProject("Burst");
    const contract = (await deployConfirmedDrop(project, { name: "Burst", metadataStorageType: "self-hosted", baseUri: "https://example.com/b/" })).contractAddress;
    const nonceBefore = await chainClient().getTransactionCount({ address: project.walletAddress as Address });

    // A distinct recipient per claim shows each predicted id went to the right request.
    const recipients = Array.from({ length: CLAIMS }, (_, i) => `0x${(0xa11ce000 + i).toString(16).padStart(40, "0")}`);
    const responses = await Promise.all(
      recipients.map((recipientAddress) =>
        call("/v1/project-wallet/drops/claim", { secretKey: project.secretKey, body: { contractAddress: contract, recipientAddress } }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(CLAIMS).fill(201));
    const predicted = responses.map((r) => Number(r.body.assets[0].tokenId));
    expect([...predicted].sort((a, b) => a - b)).toEqual(Array.from({ length: CLAIMS }, (_, i) => i + 1));

    const ids = responses.map((r) => r.body.transactions[0].id as string);
    const rows = await env.DB.prepare(`select nonce from transactions where id in (${ids.map(() => "?").join(",")})`)
      .bind(...ids)
      .all<{ nonce: number }>();
    const nonces = rows.results.map((row) => row.nonce).sort((a, b) => a - b);
    expect(nonces).toEqual(Array.from({ length: CLAIMS }, (_, i) => nonceBefore + i));

    const settled = await Promise.all(ids.map((id) => waitForTransaction(id, project.apiKey, 90_000)));
    expect(settled.every((tx) => tx.status === "confirmed")).toBe(true);
    expect(await chainClient().getTransactionCount({ address: project.walletAddress as Address })).toBe(nonceBefore + CLAIMS);
    for (const [index, recipient] of recipients.entries()) {
      expect((await ownerOf(contract, BigInt(predicted[index]!))).toLowerCase()).toBe(recipient);
    }
  });
});
