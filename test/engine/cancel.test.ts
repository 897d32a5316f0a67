// POST /v1/transactions/{id}/cancel (decision 104): the watcher takes the nonce with a 0-value
// self-transfer; the transaction ends `failed` when that is mined, and nothing it would have done
// happens. Mining is never paused here: the claim's own broadcasts are kept from the node instead.
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { parseTransaction, type Address, type Hex } from "viem";
import { watcherStub } from "../../src/durable-objects/stubs";
import { serviceContext } from "../../src/services/context";
import { insertPendingRow } from "../../src/services/engine/transaction-rows";
import type { WatchedTransaction } from "../../src/services/engine/types";
import { pollOnce, type RecordStore, type SequencerPort } from "../../src/services/engine/watcher";
import { chainClient, dropReadAbi, ownerOf, rpc, waitForTransaction } from "../helpers/chain";
import { claimConfirmed, deployConfirmedDrop } from "../helpers/drops";
import { transferIntent, until } from "../helpers/engine";
import { interceptFetch, recordFetches } from "../helpers/fetch-spy";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";

let project: TestProject;
let contract: string;
const recipient = "0x14dC79964da2C08b23698B3D3cc7Ca32193d9955";

const walletNonce = () => chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "latest" });
const totalMinted = () => chainClient().readContract({ address: contract as Address, abi: dropReadAbi, functionName: "totalMinted" });
const cancel = (id: string, headers?: Record<string, string>) => call(`/v1/transactions/${id}/cancel`, { method: "POST", secretKey: project.secretKey, ...(headers ? { headers } : {}) });

/** Every broadcast of a transaction that is not a self-transfer of the wallet gets a 503: the node never sees the claim. */
function keepCallsFromTheNode(): Hex[] {
  const kept: Hex[] = [];
  interceptFetch(async (request, pass) => {
    const message = request.body ? (JSON.parse(request.body) as { id: unknown; method: string; params: unknown[] }) : undefined;
    if (message?.method === "eth_sendRawTransaction") {
      const raw = message.params[0] as Hex;
      if (parseTransaction(raw).to?.toLowerCase() !== project.walletAddress.toLowerCase()) {
        kept.push(raw);
        return new Response("upstream unavailable", { status: 503 });
      }
    }
    return pass();
  });
  return kept;
}

beforeAll(async () => {
  project = await createTestProject("Cancel");
  contract = (await deployConfirmedDrop(project, { name: "Cancel drop", metadataStorageType: "self-hosted", baseUri: "https://example.com/c/" })).contractAddress;
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("cancelling a pending transaction", () => {
  it("takes its nonce with a 0-value self-transfer: the claim ends failed, mints nothing, and its token id goes to the next claim", async () => {
    const [nonceBefore, mintedBefore] = [await walletNonce(), await totalMinted()];
    const kept = keepCallsFromTheNode();
    const claimed = await call("/v1/project-wallet/drops/claim", { secretKey: project.secretKey, body: { contractAddress: contract, recipientAddress: recipient, quantity: 1 } });
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(201);
    const tx = claimed.body.transactions[0] as { id: string; transactionHash: string };
    const predicted = claimed.body.assets[0].tokenId as string;
    expect(kept.length).toBeGreaterThan(0);

    const answered = await cancel(tx.id, { "idempotency-key": `cancel-${tx.id}` });
    expect(answered.status, JSON.stringify(answered.body)).toBe(202);
    expect(answered.body).toMatchObject({ id: tx.id, status: "pending", transactionHash: tx.transactionHash });
    // A retry with the same key replays the first answer; one without a key is taken again.
    const replayed = await cancel(tx.id, { "idempotency-key": `cancel-${tx.id}` });
    expect([replayed.status, replayed.headers.get("idempotent-replayed")]).toEqual([202, "true"]);
    expect((await cancel(tx.id)).status).toBe(202);

    const settled = await waitForTransaction(tx.id, project.apiKey);
    expect(settled.status).toBe("failed");
    expect(settled.errorMessage).toMatch(/^cancelled at the project's request/);
    expect(settled.transactionHash).toBe(tx.transactionHash);
    expect(settled.gasUsed).toBeNull();
    expect(await walletNonce()).toBe(nonceBefore + 1);
    expect(await totalMinted()).toBe(mintedBefore);
    expect(await rpc("eth_getTransactionReceipt", [tx.transactionHash])).toBeNull();
    const record = (await watcherStub(env, tx.id).record())!;
    expect(record.hashes.at(-1)!.purpose).toBe("fill");
    expect(record.cancelled).toBe(true);
    const filler = await chainClient().getTransaction({ hash: record.hashes.at(-1)!.hash as Hex });
    const wallet = project.walletAddress.toLowerCase();
    expect({ from: filler.from, to: filler.to, value: filler.value, nonce: filler.nonce }).toEqual({ from: wallet, to: wallet, value: 0n, nonce: nonceBefore });

    // Once final it cannot be cancelled again.
    const again = expectEnvelope(await cancel(tx.id), 409, "conflict");
    expect(again.details).toEqual([{ path: "status", message: "failed" }]);

    // The cancelled claim gave its token id back: the next claim gets it, and mints it.
    vi.restoreAllMocks();
    const [next] = await claimConfirmed(project, { contractAddress: contract, recipientAddress: recipient, quantity: 1 });
    expect(next).toBe(predicted);
    expect((await ownerOf(contract, BigInt(next!))).toLowerCase()).toBe(recipient.toLowerCase());
  });

  it("leaves a transaction the chain mined first as it ended: confirmed, with no filler sent", async () => {
    const nonceBefore = await walletNonce();
    // Its watcher does not see the receipt until the cancellation has been answered.
    let receiptsHidden = true;
    interceptFetch(async (request, pass) => {
      const message = request.body ? (JSON.parse(request.body) as { id: unknown; method: string }) : undefined;
      if (receiptsHidden && message?.method === "eth_getTransactionReceipt") {
        return new Response(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: null }), { headers: { "content-type": "application/json" } });
      }
      return pass();
    });
    const claimed = await call("/v1/project-wallet/drops/claim", { secretKey: project.secretKey, body: { contractAddress: contract, recipientAddress: recipient, quantity: 1 } });
    expect(claimed.status).toBe(201);
    const tx = claimed.body.transactions[0] as { id: string; transactionHash: Hex };
    // Mined (the test's own receipt calls are hidden too: the lookup by hash shows the block).
    await until(() => rpc<{ blockNumber: string | null } | null>("eth_getTransactionByHash", [tx.transactionHash]), (found) => Boolean(found?.blockNumber));

    expect((await cancel(tx.id)).status).toBe(202);
    receiptsHidden = false;
    const settled = await waitForTransaction(tx.id, project.apiKey);
    expect(settled.status).toBe("confirmed");
    expect(settled.transactionHash).toBe(tx.transactionHash);
    expect((await ownerOf(contract, BigInt(claimed.body.assets[0].tokenId))).toLowerCase()).toBe(recipient.toLowerCase());
    expect((await watcherStub(env, tx.id).record())!.hashes.map((sent) => sent.purpose)).toEqual(["original"]);
    expect(await walletNonce()).toBe(nonceBefore + 1);
  });

  it("is 409 for a transaction already mined, 404 for an unknown one, 400 for an id that is not a UUID", async () => {
    const claimed = await call("/v1/project-wallet/drops/claim", { secretKey: project.secretKey, body: { contractAddress: contract, recipientAddress: recipient, quantity: 1 } });
    expect(claimed.status).toBe(201);
    const id = claimed.body.transactions[0].id as string;
    expect((await waitForTransaction(id, project.apiKey)).status).toBe("confirmed");
    const mined = expectEnvelope(await cancel(id), 409, "conflict");
    expect(mined.message).toContain("already confirmed");
    expect((await watcherStub(env, id).record())!.filling).toBe(false);

    expectEnvelope(await cancel(crypto.randomUUID()), 404, "not_found");
    expect(expectEnvelope(await cancel("not-a-uuid"), 400, "validation_error").details?.[0]?.path).toBe("path.id");
  });
});

describe("a cancellation the watcher has taken", () => {
  const fees = { maxFeePerGas: "2000000000", maxPriorityFeePerGas: "1000000000" };

  it("waits while the sequencer may still take the transaction back, then sends the filler and nothing of the original", async () => {
    const owner = await createTestProject("Cancel window");
    const intent = transferIntent({ id: owner.id, walletAddress: owner.walletAddress }, 0);
    const ctx = serviceContext(env);
    const txHash = `0x${"c1".repeat(32)}`;
    await insertPendingRow(ctx.db, intent, { nonce: 40, hash: txHash, fromAddress: owner.walletAddress, createdAt: new Date() });
    const record: WatchedTransaction = {
      id: intent.transactionId,
      projectId: owner.id,
      chainId: intent.chainId,
      walletAddress: owner.walletAddress,
      walletIndex: intent.walletIndex,
      kind: intent.kind,
      subjectId: null,
      nonce: 40,
      to: intent.to,
      data: intent.data,
      value: intent.value,
      gas: "21000",
      ...fees,
      raw: "0x02aa",
      hashes: [{ hash: txHash, purpose: "original", ...fees }],
      createdAt: Date.now(),
      pendingSinceBlock: null,
      polls: 0,
      bumps: 0,
      filling: false,
      settled: false,
    };
    const filled: WatchedTransaction[] = [];
    const sequencer = (mayRebroadcast: boolean): SequencerPort => ({
      mayRebroadcast: () => mayRebroadcast,
      bump: () => Promise.reject(new Error("no bump expected")),
      fill: (asked) => {
        filled.push(asked);
        return Promise.resolve({ ...asked, filling: true, raw: "0x02bb", hashes: [...asked.hashes, { hash: `0x${"f1".repeat(32)}`, purpose: "fill", ...fees }] });
      },
      settleReservation: () => Promise.resolve(),
      releaseSubject: () => Promise.resolve(),
    });
    const cancelled: RecordStore = { save: () => Promise.resolve(), isCurrent: () => Promise.resolve(true), cancelRequested: true };
    const broadcasts = recordFetches(({ body }) => body?.includes('"eth_sendRawTransaction"') ?? false);

    const waiting = await pollOnce(ctx, record, sequencer(false), cancelled);
    expect(filled).toEqual([]);
    expect(broadcasts).toEqual([]);
    expect(waiting.nextPollInMs).toBe(Number(env.ENGINE_POLL_MS));

    const sent = await pollOnce(ctx, record, sequencer(true), cancelled);
    expect(filled.map((asked) => asked.cancelled)).toEqual([true]);
    expect(sent.record.filling).toBe(true);
    expect(broadcasts.map(({ body }) => (JSON.parse(body!) as { params: string[] }).params[0])).toEqual(["0x02bb"]);
  });
});
