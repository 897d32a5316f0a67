// Once a transaction is out, the request must not fail: a client (or its retry with the same
// Idempotency-Key) would otherwise send it a second time. And when the engine's answer is lost,
// the request is stored as answered, never re-run.
import { env } from "cloudflare:workers";
import { Hono } from "hono";
import { describe, expect, it, vi } from "vitest";
import type { Address } from "viem";
import { onError } from "../../src/app";
import { OutcomeUnknownError } from "../../src/lib/errors";
import { idempotency } from "../../src/routes/middleware/idempotency";
import { serviceContext } from "../../src/services/context";
import { deployDrop } from "../../src/services/drops/deploy-drop";
import type { AppBindings } from "../../src/routes/app-types";
import { chainClient, fund, waitForTransaction } from "../helpers/chain";
import { call } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";

/**
 * A live endpoint of the project whose deliveries cannot be written (a trigger refuses them):
 * queueing any event for the project fails, the pending event after the send as well as
 * settlement's batch, which retries until the returned function removes the trigger.
 */
async function breakWebhookQueueing(project: TestProject): Promise<() => Promise<unknown>> {
  const id = crypto.randomUUID();
  const trigger = `refuse_deliveries_${id.replaceAll("-", "")}`;
  await env.DB.batch([
    env.DB.prepare("insert into webhook_endpoints (id, project_id, url, events, created_at) values (?, ?, ?, ?, ?)").bind(
      id,
      project.id,
      "https://example.com/broken",
      JSON.stringify(["transaction.pending", "transaction.confirmed"]),
      Date.now(),
    ),
    env.DB.prepare(`create trigger ${trigger} before insert on webhook_deliveries when new.endpoint_id = '${id}' begin select raise(abort, 'deliveries refused'); end`),
  ]);
  return () => env.DB.batch([env.DB.prepare(`drop trigger ${trigger}`), env.DB.prepare("delete from webhook_endpoints where id = ?").bind(id)]);
}

const pendingNonce = (project: TestProject) => chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "pending" });

describe("a failure after the transaction is sent", () => {
  it("still answers 201 and replays that answer, sending once", async () => {
    const project = await createTestProject("Broken hooks");
    await fund(project.walletAddress);
    const repair = await breakWebhookQueueing(project);
    const nonceBefore = await pendingNonce(project);
    const request = {
      secretKey: project.secretKey,
      headers: { "idempotency-key": `transfer-${crypto.randomUUID()}` },
      body: { type: "native", recipientAddress: "0x000000000000000000000000000000000000dEaD", amount: "7" },
    };

    const errors = vi.spyOn(console, "error");
    const first = await call("/v1/project-wallet/transfer", request);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    // The pending event was attempted after the send, and refused.
    expect(errors.mock.calls.map(([line]) => String(line))).toContainEqual(expect.stringMatching(/"where":"announcePending".*deliveries refused/));
    errors.mockRestore();
    const retried = await call("/v1/project-wallet/transfer", request);
    expect(retried.status).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(retried.body.id).toBe(first.body.id);
    await repair();
    expect((await waitForTransaction(first.body.id, project.apiKey)).status).toBe("confirmed");
    expect(await pendingNonce(project)).toBe(nonceBefore + 1);
  });

  it("keeps a deployed drop's records", async () => {
    const project = await createTestProject("Broken hooks deploy");
    await fund(project.walletAddress);
    const repair = await breakWebhookQueueing(project);
    const deployed = await call("/v1/project-wallet/drops/deploy", {
      secretKey: project.secretKey,
      body: { name: "Kept drop", metadataStorageType: "self-hosted", baseUri: "https://example.com/k/" },
    });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
    await repair();
    expect((await waitForTransaction(deployed.body.transactions[0].id, project.apiKey)).status).toBe("confirmed");
    const drop = await call(`/v1/drops/${deployed.body.drop.id}`, { apiKey: project.apiKey });
    expect(drop.status).toBe(200);
    expect(drop.body).toMatchObject({ contractAddress: deployed.body.drop.contractAddress, name: "Kept drop" });
    const row = await env.DB.prepare("select status from drops where id = ?").bind(deployed.body.drop.id).first<{ status: string }>();
    expect(row?.status).toBe("deployed");
  });
});

describe("an answer lost between the Worker and the wallet engine", () => {
  it("leaves a deploy's drop in place, since its transaction may be on its way", async () => {
    const project = await createTestProject("Lost deploy answer");
    // A sequencer whose answer never comes back (its object reset mid-call).
    const unanswered = { idFromName: () => ({}), get: () => ({ submit: () => Promise.reject(new Error("Durable Object reset")) }) };
    const ctx = serviceContext({ ...env, WALLET_SEQUENCER: unanswered as unknown as Env["WALLET_SEQUENCER"] });
    const deploying = deployDrop(ctx, project.id, { chainId: 1868, name: "Maybe deployed", mode: "standard", metadataStorageType: "self-hosted", baseUri: "https://example.com/m/" });
    await expect(deploying).rejects.toBeInstanceOf(OutcomeUnknownError);
    const drop = await env.DB.prepare("select status from drops where project_id = ? and name = ?").bind(project.id, "Maybe deployed").first<{ status: string }>();
    expect(drop?.status).toBe("pending");
  });

  it("is stored under the Idempotency-Key and replayed, not run again", async () => {
    const project = await createTestProject("Lost answers");
    let runs = 0;
    const app = new Hono<AppBindings>();
    app.use("*", async (c, next) => {
      c.set("requestId", crypto.randomUUID());
      c.set("auth", { projectId: project.id, keyId: "test", kind: "secret" });
      await next();
    });
    app.post("/send", idempotency, () => {
      runs += 1;
      throw new OutcomeUnknownError("the wallet engine did not answer", "tx-1");
    });
    app.post("/broken", idempotency, () => {
      runs += 1;
      throw new Error("an ordinary bug");
    });
    app.onError(onError);
    const send = (path: string) => app.request(path, { method: "POST", headers: { "idempotency-key": `lost-${path}-${project.id}` }, body: "{}" }, env);

    const first = await send("/send");
    const again = await send("/send");
    expect([first.status, again.status, again.headers.get("idempotent-replayed"), runs]).toEqual([500, 500, "true", 1]);
    expect(await again.json()).toMatchObject({ error: { code: "internal_error", details: [{ path: "transaction" }] } });
    // Any other 5xx frees the key: nothing was handed to the engine, so the retry runs.
    expect([(await send("/broken")).status, (await send("/broken")).status, runs]).toEqual([500, 500, 3]);
  });
});
