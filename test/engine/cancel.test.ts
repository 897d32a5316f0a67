// POST /v1/transactions/{id}/cancel (decision 104): the watcher takes the nonce with a 0-value
// self-transfer; the transaction ends `failed` when that is mined, and nothing it would have done
// happens. Mining is never paused here: the claim's own broadcasts are kept from the node instead.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { parseTransaction, type Address, type Hex } from "viem";
import { watcherStub } from "../../src/services/durable-object-stubs";
import { serviceContext } from "../../src/services/context";
import { insertPendingRow } from "../../src/services/engine/transaction-rows";
import type { TxIntent, UnminedTransaction, WatchedTransaction } from "../../src/services/engine/types";
import { pollOnce, type RecordStore, type SequencerPort } from "../../src/services/engine/watcher";
import { chainClient, dropReadAbi, ownerOf, rpc, waitForTransaction } from "../helpers/chain";
import { claimConfirmed, deployConfirmedDrop } from "../helpers/drops";
import { fundedProject, RECORD_FEES, transferIntent, until, watchedRecord } from "../helpers/engine";
import { interceptFetch, recordFetches, type SpiedRequest } from "../helpers/fetch-spy";
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

    const answered = await cancel(tx.id);
    expect(answered.status, JSON.stringify(answered.body)).toBe(202);
    expect(answered.body).toMatchObject({ id: tx.id, status: "pending", transactionHash: tx.transactionHash });
    // Asking again is answered the same; a retry with the same key replays the first answer.
    const keyed = await cancel(tx.id, { "idempotency-key": `cancel-${tx.id}` });
    expect(keyed.status).toBe(202);
    const replayed = await cancel(tx.id, { "idempotency-key": `cancel-${tx.id}` });
    expect([replayed.status, replayed.headers.get("idempotent-replayed")]).toEqual([202, "true"]);

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

  it("is 409 for a transaction already mined, 404 for an unknown one, 400 for an id that is not a UUID", async () => {
    const claimed = await call("/v1/project-wallet/drops/claim", { secretKey: project.secretKey, body: { contractAddress: contract, recipientAddress: recipient, quantity: 1 } });
    expect(claimed.status).toBe(201);
    const id = claimed.body.transactions[0].id as string;
    expect((await waitForTransaction(id, project.apiKey)).status).toBe("confirmed");
    const mined = expectEnvelope(await cancel(id), 409, "conflict");
    expect(mined.message).toContain("already confirmed");
    expect((await watcherStub(env, id).record())!.state).not.toBe("filling");

    expectEnvelope(await cancel(crypto.randomUUID()), 404, "not_found");
    expect(expectEnvelope(await cancel("not-a-uuid"), 400, "validation_error").details?.[0]?.path).toBe("path.id");
  });
});

describe("a cancellation the watcher has taken", () => {
  const fees = RECORD_FEES;
  const fillerHash = `0x${"f1".repeat(32)}`;
  // Old enough that its regular polls would be a second apart (ENGINE_MAX_POLL_MS).
  const recordOf = (intent: TxIntent, nonce: number, hash: string) => watchedRecord(intent, nonce, { hash, raw: "0x02aa", polls: 20 });
  /** `record` once the sequencer's filler (bytes 0x02bb) has gone out for its nonce. */
  const withFiller = (record: WatchedTransaction): UnminedTransaction => ({
    ...record,
    state: "filling",
    raw: "0x02bb",
    hashes: [...record.hashes, { hash: fillerHash, purpose: "fill", ...fees }],
  });
  /** A new project's transfer at `nonce` whose pending row is written, and its watcher's record (hash `hash`). */
  async function announcedTransfer(name: string, nonce: number, hash: string) {
    const owner = await createTestProject(name);
    const intent = transferIntent({ id: owner.id, walletAddress: owner.walletAddress }, 0);
    await insertPendingRow(serviceContext(env).db, intent, { nonce, hash, fromAddress: owner.walletAddress, createdAt: new Date() });
    return recordOf(intent, nonce, hash);
  }
  /** A sequencer whose `fill` records what it was asked and answers with a filler that has bytes of its own. */
  function sequencerPort(mayRebroadcast: boolean, filled: WatchedTransaction[]): SequencerPort {
    return {
      mayRebroadcast: () => mayRebroadcast,
      bump: () => Promise.reject(new Error("no bump expected")),
      fill: (asked) => {
        filled.push(asked);
        return Promise.resolve(withFiller(asked));
      },
      settleReservation: () => Promise.resolve(),
      releaseSubject: () => Promise.resolve(),
    };
  }
  const cancelled: RecordStore = { save: () => Promise.resolve(), isCurrent: () => Promise.resolve(true), cancelRequested: true };
  const broadcastBytes = (requests: { body: string | undefined }[]) => requests.map(({ body }) => (JSON.parse(body!) as { params: string[] }).params[0]);

  it("waits while the sequencer may still take the transaction back, then sends the filler and nothing of the original", async () => {
    const ctx = serviceContext(env);
    const record = await announcedTransfer("Cancel window", 40, `0x${"c1".repeat(32)}`);
    const filled: WatchedTransaction[] = [];
    const broadcasts = recordFetches(({ body }) => body?.includes('"eth_sendRawTransaction"') ?? false);

    const waiting = await pollOnce(ctx, record, sequencerPort(false, filled), cancelled);
    expect(filled).toEqual([]);
    expect(broadcasts).toEqual([]);
    expect(waiting.nextPollInMs).toBe(Number(env.ENGINE_POLL_MS));

    const sent = await pollOnce(ctx, record, sequencerPort(true, filled), cancelled);
    expect(filled.map((asked) => asked.cancelled)).toEqual([true]);
    expect(sent.record.state).toBe("filling");
    expect(broadcastBytes(broadcasts)).toEqual(["0x02bb"]);
  });

  it("says the transaction was cancelled when the deadline's filler had gone out before the request", async () => {
    const filling = withFiller(await announcedTransfer("Cancel after deadline", 41, `0x${"c2".repeat(32)}`));
    const filled: WatchedTransaction[] = [];
    const polled = await pollOnce(serviceContext(env), filling, sequencerPort(true, filled), cancelled);
    expect(filled).toEqual([]);
    expect(polled.record.cancelled).toBe(true);
  });

  it("ends confirmed when the transaction is mined although its filler went out", async () => {
    const { project: owner, walletIndex, wallet, nextNonce } = await fundedProject("Cancel lost race");
    const intent = transferIntent({ id: owner.id, walletAddress: owner.walletAddress }, walletIndex);
    // The "original": sent from the project wallet by the node itself, so the test has its hash.
    await rpc("anvil_impersonateAccount", [wallet]);
    const txHash = await rpc<Hex>("eth_sendTransaction", [{ from: wallet, to: intent.to, value: "0x1" }]);
    await rpc("anvil_stopImpersonatingAccount", [wallet]);
    const ctx = serviceContext(env);
    await insertPendingRow(ctx.db, intent, { nonce: nextNonce, hash: txHash, fromAddress: wallet, createdAt: new Date() });
    const filled: WatchedTransaction[] = [];

    // The cancelling poll sees it unmined (its receipt and the wallet's count hidden) and sends the filler, which the node never gets.
    const broadcasts: SpiedRequest[] = [];
    interceptFetch(async (request, pass) => {
      const message = request.body ? (JSON.parse(request.body) as { id: unknown; method: string }) : undefined;
      const answer = (result: unknown) => new Response(JSON.stringify({ jsonrpc: "2.0", id: message!.id, result }), { headers: { "content-type": "application/json" } });
      if (message?.method === "eth_getTransactionReceipt") return answer(null);
      if (message?.method === "eth_getTransactionCount") return answer(`0x${nextNonce.toString(16)}`);
      if (message?.method === "eth_sendRawTransaction") {
        broadcasts.push(request);
        return answer(fillerHash);
      }
      return pass();
    });
    const first = await pollOnce(ctx, recordOf(intent, nextNonce, txHash), sequencerPort(true, filled), cancelled);
    vi.restoreAllMocks();
    expect(broadcastBytes(broadcasts)).toEqual(["0x02bb"]);
    expect(first.record.state).toBe("filling");

    await until(() => rpc<{ blockNumber: string | null } | null>("eth_getTransactionByHash", [txHash]), (found) => Boolean(found?.blockNumber));
    const second = await pollOnce(ctx, first.record, sequencerPort(true, filled), cancelled);
    expect([second.record.state, second.nextPollInMs]).toEqual(["settled", null]);
    const row = await env.DB.prepare("select status, error_message, transaction_hash from transactions where id = ?").bind(intent.transactionId).first();
    expect(row).toEqual({ status: "confirmed", error_message: null, transaction_hash: txHash });
  });
});

describe("the watcher's cancellation request", () => {
  const record = (id: string): WatchedTransaction =>
    watchedRecord({ ...transferIntent({ id: crypto.randomUUID(), walletAddress: "0x000000000000000000000000000000000000bEEF" }, 0), transactionId: id }, 0);

  it("moves the alarm to now the first time only, so repeating it cannot make the watcher poll without pause", async () => {
    const id = crypto.randomUUID();
    await runInDurableObject(watcherStub(env, id), async (instance, state) => {
      await instance.track(record(id));
      await state.storage.deleteAlarm();
      // Recorded, not set: a real alarm now would poll this made-up record.
      const setAlarm = vi.spyOn(state.storage, "setAlarm").mockResolvedValue(undefined);
      const before = Date.now();
      expect(await instance.requestCancel()).toBe("taken");
      expect(setAlarm).toHaveBeenCalledTimes(1);
      expect(Number(setAlarm.mock.calls[0]![0])).toBeGreaterThanOrEqual(before);
      expect(Number(setAlarm.mock.calls[0]![0])).toBeLessThanOrEqual(Date.now());
      expect(await instance.requestCancel()).toBe("taken");
      expect(setAlarm).toHaveBeenCalledTimes(1);
    });
  });

  it("waits for a record that has not arrived yet, which then polls with it; none coming, the object empties", async () => {
    const waiting = crypto.randomUUID();
    await runInDurableObject(watcherStub(env, waiting), async (instance, state) => {
      expect(await instance.requestCancel()).toBe("taken");
      expect(await state.storage.getAlarm()).toBeGreaterThan(Date.now() + 60_000);
      await instance.track(record(waiting));
      expect(await state.storage.get("cancel")).toBeTypeOf("number");
      expect(await state.storage.getAlarm()).toBeLessThan(Date.now() + 60_000);
      await state.storage.deleteAlarm();
    });
    const abandoned = crypto.randomUUID();
    await runInDurableObject(watcherStub(env, abandoned), async (instance, state) => {
      await instance.requestCancel();
      await instance.alarm();
      expect([...(await state.storage.list()).keys()]).toEqual([]);
    });
  });

  it("answers settled for a record that is final", async () => {
    const id = crypto.randomUUID();
    await runInDurableObject(watcherStub(env, id), async (instance, state) => {
      await instance.track({ ...record(id), state: "settled" });
      await state.storage.deleteAlarm();
      expect(await instance.requestCancel()).toBe("settled");
      expect(await state.storage.getAlarm()).toBeNull();
    });
  });
});
