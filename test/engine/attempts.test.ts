// A transaction re-signed at a new nonce (after "nonce too low") is a new attempt of the same
// record. Whatever the first attempt's watcher is still doing must not touch the new one: not
// its D1 row, not the watcher's stored record.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { watcherStub } from "../../src/services/durable-object-stubs";
import { serviceContext } from "../../src/services/context";
import { finalizeTransaction } from "../../src/services/engine/finalize";
import { insertPendingRow, updatePendingHash } from "../../src/services/engine/transaction-rows";
import type { TxIntent, WatchedTransaction } from "../../src/services/engine/types";
import { attemptOf, pollOnce, SupersededRecord, type RecordStore, type SequencerPort } from "../../src/services/engine/watcher";
import { NONCE_TAKEN_CONFIRM_MS } from "../../src/services/engine/watcher-steps";
import { chainClient, fund, waitForTransaction } from "../helpers/chain";
import { fundedProject, spendOutsideTheService, transferIntent, until, watchedRecord } from "../helpers/engine";
import { recordFetches } from "../helpers/fetch-spy";
import { call } from "../helpers/http";
import { createTestProject } from "../helpers/projects";

const hash = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

const intentFor = (projectId: string, walletAddress: string) => transferIntent({ id: projectId, walletAddress }, 0);

/** The record of `intent`'s attempt at `nonce` (its hash is hash(nonce)). */
const attempt = (intent: TxIntent, nonce: number): WatchedTransaction => watchedRecord(intent, nonce);

/** A sequencer a poll must not need, and a watcher store that takes every write. */
const untouched: SequencerPort = {
  mayRebroadcast: () => true,
  bump: () => Promise.reject(new Error("no bump expected")),
  fill: () => Promise.reject(new Error("no fill expected")),
  settleReservation: () => Promise.resolve(),
  releaseSubject: () => Promise.resolve(),
};
const store: RecordStore = { save: () => Promise.resolve(), isCurrent: () => Promise.resolve(true), cancelRequested: false };

const rowOf = (id: string) => env.DB.prepare("select status, nonce, transaction_hash from transactions where id = ?").bind(id).first<{ status: string; nonce: number; transaction_hash: string }>();

describe("a transaction re-signed at a new nonce", () => {
  it("moves its pending row to the new nonce, which only that attempt's watcher can settle", async () => {
    const project = await createTestProject("Attempts");
    const intent = intentFor(project.id, project.walletAddress);
    const db = serviceContext(env).db;
    await insertPendingRow(db, intent, { nonce: 6, hash: hash(6), fromAddress: project.walletAddress, createdAt: new Date() });
    const moved = await insertPendingRow(db, intent, { nonce: 7, hash: hash(7), fromAddress: project.walletAddress, createdAt: new Date() });
    expect(moved.row).toMatchObject({ status: "pending", nonce: 7, transactionHash: hash(7) });

    // The first attempt's watcher concluding "nonce used by another transaction" changes nothing.
    await finalizeTransaction(serviceContext(env), attempt(intent, 6), { status: "failed", reason: "its nonce was used by another transaction" });
    expect(await rowOf(intent.transactionId)).toEqual({ status: "pending", nonce: 7, transaction_hash: hash(7) });

    await finalizeTransaction(serviceContext(env), attempt(intent, 7), { status: "failed", reason: "test" });
    expect(await rowOf(intent.transactionId)).toMatchObject({ status: "failed", nonce: 7 });
  });

  it("is not stored once the first attempt was settled meanwhile", async () => {
    const project = await createTestProject("Attempts settled");
    const intent = intentFor(project.id, project.walletAddress);
    const db = serviceContext(env).db;
    await insertPendingRow(db, intent, { nonce: 3, hash: hash(3), fromAddress: project.walletAddress, createdAt: new Date() });
    await finalizeTransaction(serviceContext(env), attempt(intent, 3), { status: "failed", reason: "its nonce was used by another transaction" });

    const resigned = await insertPendingRow(db, intent, { nonce: 4, hash: hash(4), fromAddress: project.walletAddress, createdAt: new Date() });
    expect(resigned.row).toBeUndefined();
    expect(await rowOf(intent.transactionId)).toMatchObject({ status: "failed", nonce: 3 });
  });

  it("sends a new attempt's bytes only once its row shows that attempt's nonce", async () => {
    const project = await createTestProject("Attempts unannounced");
    const intent = intentFor(project.id, project.walletAddress);
    const ctx = serviceContext(env);
    // The re-sign's row write has not landed: the row still shows the first attempt.
    await insertPendingRow(ctx.db, intent, { nonce: 20, hash: hash(20), fromAddress: project.walletAddress, createdAt: new Date() });
    const second = attempt(intent, 21);
    const broadcasts = recordFetches(({ body }) => body?.includes('"eth_sendRawTransaction"') ?? false);
    try {
      await pollOnce(ctx, second, untouched, store);
      expect(broadcasts).toEqual([]);
      await insertPendingRow(ctx.db, intent, { nonce: 21, hash: hash(21), fromAddress: project.walletAddress, createdAt: new Date() });
      // Nor while the sequencer may still take it back, nor once `forget` deleted the record
      // this poll read (decision 100).
      await pollOnce(ctx, second, { ...untouched, mayRebroadcast: () => false }, store);
      const forgotten: RecordStore = { save: () => Promise.resolve(), isCurrent: () => Promise.resolve(false), cancelRequested: false };
      await expect(pollOnce(ctx, second, untouched, forgotten)).rejects.toBeInstanceOf(SupersededRecord);
      expect(broadcasts).toEqual([]);
      await pollOnce(ctx, second, untouched, store);
      expect(broadcasts).toHaveLength(1);
    } finally {
      vi.restoreAllMocks();
    }

    // A fee bump of the replaced attempt cannot put its hash on the row either.
    await updatePendingHash(ctx.db, intent.transactionId, hash(99), 20);
    expect(await rowOf(intent.transactionId)).toEqual({ status: "pending", nonce: 21, transaction_hash: hash(21) });
  });

  it("keeps a poll of the old attempt from writing its record back over the new one, or over a withdrawal", async () => {
    const project = await createTestProject("Attempts watcher");
    const intent = intentFor(project.id, project.walletAddress);
    const [first, second] = [attempt(intent, 10), attempt(intent, 11)];
    await runInDurableObject(watcherStub(env, intent.transactionId), async (instance, state) => {
      const saveAttempt = (from: WatchedTransaction, record: WatchedTransaction) => instance["saveAttempt"](attemptOf(from), record);
      // Polls are driven by hand here: track's alarm is removed so no real poll interleaves.
      const track = async (record: WatchedTransaction) => {
        await instance.track(record);
        await state.storage.deleteAlarm();
      };
      await track(first);
      await saveAttempt(first, { ...first, polls: 1 });
      expect((await instance.record())?.polls).toBe(1);

      await track(second);
      await expect(saveAttempt(first, { ...first, polls: 2 })).rejects.toBeInstanceOf(SupersededRecord);
      expect(await instance.record()).toEqual(second);

      await instance.forget();
      await expect(saveAttempt(second, { ...second, polls: 1 })).rejects.toBeInstanceOf(SupersededRecord);
      expect(await instance.record()).toBeNull();
    });
  });

  it("gives up an attempt whose nonce another transaction took only once that has held for a while", async () => {
    const project = await createTestProject("Nonce taken");
    await fund(project.walletAddress);
    // Nonce 0 goes to a transaction the service never signed.
    await spendOutsideTheService(project.walletAddress);
    const ctx = serviceContext(env);
    await until(() => chainClient().getTransactionCount({ address: project.walletAddress as `0x${string}` }), (count) => count > 0);
    const ours = attempt(intentFor(project.id, project.walletAddress), 0);

    // One sighting could be a node a block behind another: keep polling.
    const first = await pollOnce(ctx, ours, untouched, store);
    expect(first.nextPollInMs).not.toBeNull();
    expect(first.record.state).not.toBe("settled");
    expect(first.record.nonceTakenSince).toBeTypeOf("number");

    const later = await pollOnce(ctx, { ...first.record, nonceTakenSince: Date.now() - NONCE_TAKEN_CONFIRM_MS }, untouched, store);
    expect([later.nextPollInMs, later.record.state]).toEqual([null, "settled"]);

    // A buy re-signed meanwhile keeps its id, and its hold: the old attempt must not free it.
    const released: string[] = [];
    const holdKeeper: SequencerPort = { ...untouched, releaseSubject: (_subject, id) => Promise.resolve(void released.push(id)) };
    const replaced: RecordStore = { save: () => Promise.resolve(), isCurrent: () => Promise.resolve(false), cancelRequested: false };
    const oldBuy = { ...first.record, kind: "buy" as const, subjectId: `0x${"ab".repeat(32)}`, nonceTakenSince: Date.now() - NONCE_TAKEN_CONFIRM_MS };
    await expect(pollOnce(ctx, oldBuy, holdKeeper, replaced)).rejects.toBeInstanceOf(SupersededRecord);
    expect(released).toEqual([]);
    await pollOnce(ctx, oldBuy, holdKeeper, store);
    expect(released).toEqual([oldBuy.id]);
  });

  it("keeps a settled record a day, then its alarm empties the watcher", async () => {
    const { project } = await fundedProject("Watcher retention");
    const sent = await call("/v1/project-wallet/transfer", {
      secretKey: project.secretKey,
      body: { type: "native", recipientAddress: "0x000000000000000000000000000000000000dEaD", amount: "1" },
    });
    expect((await waitForTransaction(sent.body.id, project.apiKey)).status).toBe("confirmed");
    const watcher = watcherStub(env, sent.body.id);
    const alarmAt = await runInDurableObject(watcher, (_instance, state) => state.storage.getAlarm());
    expect(alarmAt! - Date.now()).toBeGreaterThan(23 * 60 * 60 * 1000);
    expect((await runInDurableObject(watcher, (instance) => instance.record()))?.state).toBe("settled");

    expect(await runDurableObjectAlarm(watcher)).toBe(true);
    expect(await runInDurableObject(watcher, (instance) => instance.record())).toBeNull();
  });
});
