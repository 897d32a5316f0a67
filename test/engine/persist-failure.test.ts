// The sequencer persists a transaction in two places (its TxWatcher and the D1 row) before the
// broadcast. When either write fails, nothing may go out: no watcher left to send bytes the
// caller never heard of, no pending row without a watcher, and the nonce free for the next one.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import type { Address } from "viem";
import { watcherStub, sequencerStub } from "../../src/services/durable-object-stubs";
import type { WatcherPort } from "../../src/services/engine/sequencer";
import type { WatchedTransaction } from "../../src/services/engine/types";
import { UNANNOUNCED_GRACE_MS } from "../../src/services/engine/watcher-steps";
import { chainClient, rpc, waitForTransaction } from "../helpers/chain";
import { confirmedNonce, fundedProject, newCore, sleep, storedRow, transferIntent, until, withSequencerStorage } from "../helpers/engine";

const unavailableWatcher: WatcherPort = {
  track: () => Promise.reject(new Error("the watcher's storage is unavailable")),
  forget: () => Promise.resolve(),
  record: () => Promise.resolve(null),
};

describe("a transaction that cannot be stored", () => {
  it("is not sent, leaves no row, and gives its nonce to the next transaction", async () => {
    const { project, walletIndex, nextNonce: nonceBefore } = await fundedProject("Storage trouble");
    const transfer = () => transferIntent(project, walletIndex);

    const refused = transfer();
    const sent = transfer();
    const [refusedResult, sentResult] = await withSequencerStorage(project, async (storage) => {
      const failing = newCore(storage, () => unavailableWatcher);
      const first = await failing.submit(refused);
      // A fresh core reads the nonce state the failed submit left in storage.
      const working = newCore(storage);
      return [first, await working.submit(sent)];
    });

    expect(refusedResult).toEqual({
      ok: false,
      error: { code: "internal_error", message: "the transaction could not be stored, so it was not sent; the request can be retried" },
    });
    expect(await storedRow(refused.transactionId)).toBeNull();
    expect(sentResult.ok).toBe(true);
    expect(await confirmedNonce(sent.transactionId, project.apiKey)).toBe(nonceBefore);
    expect(await chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "pending" })).toBe(nonceBefore + 1);
  });
});

describe("a watcher the sequencer could not reach to withdraw its transaction", () => {
  it("never broadcasts the bytes, then fills the nonce it holds so later transactions are not stuck", async () => {
    const { project, walletIndex, wallet, nextNonce: nonceBefore } = await fundedProject("Unreachable watcher");
    // The watcher stores the record, but the reply is lost; the withdrawal cannot reach it either.
    const replyLost = (id: string): WatcherPort => ({
      track: async (record) => {
        await watcherStub(env, id).track(record);
        throw new Error("the watcher's reply was lost");
      },
      forget: () => Promise.reject(new Error("the watcher is unreachable")),
      record: () => watcherStub(env, id).record(),
    });

    const withdrawn = transferIntent(project, walletIndex);
    const result = await withSequencerStorage(project, (storage) => newCore(storage, replyLost).submit(withdrawn));
    expect(result.ok).toBe(false);
    expect(await storedRow(withdrawn.transactionId)).toBeNull();

    const watcher = watcherStub(env, withdrawn.transactionId);
    const stored = () => runInDurableObject(watcher, (instance) => instance.record()) as Promise<WatchedTransaction>;
    // Its alarm polls every 200 ms in tests: several polls, and still nothing sent.
    await sleep(1_500);
    const orphan = await stored();
    expect(orphan.polls).toBeGreaterThan(1);
    expect(orphan.hashes).toHaveLength(1);
    expect(await rpc("eth_getTransactionByHash", [orphan.hashes[0]!.hash])).toBeNull();

    // Once its row can no longer come, the nonce it holds goes to a 0-value self-transfer. The
    // record is aged by writing it back older. A poll under way at that moment saves its own copy
    // over it (the same attempt: only the sequencer's nonce re-sign replaces a record in service),
    // which would leave the filler a full grace period away, so the write is repeated until the
    // stored record is the aged one.
    const agedAt = Date.now() - UNANNOUNCED_GRACE_MS - 1_000;
    const storedAged = async () => {
      const record = await stored();
      if (record.state !== "filling" && record.createdAt !== agedAt) await runInDurableObject(watcher, (instance) => instance.track({ ...record, createdAt: agedAt }));
      return record;
    };
    const settled = await until(storedAged, (record) => record.state === "settled", 45_000);
    expect(settled.state).toBe("settled");
    const filler = settled.hashes.at(-1)!;
    expect(filler.purpose).toBe("fill");
    const fillerOnChain = await chainClient().getTransaction({ hash: filler.hash as `0x${string}` });
    expect({ from: fillerOnChain.from, to: fillerOnChain.to, value: fillerOnChain.value, nonce: fillerOnChain.nonce }).toEqual({
      from: wallet.toLowerCase(),
      to: wallet.toLowerCase(),
      value: 0n,
      nonce: nonceBefore,
    });
    expect(await rpc("eth_getTransactionByHash", [orphan.hashes[0]!.hash])).toBeNull();
    expect(await storedRow(withdrawn.transactionId)).toBeNull();

    // The next transaction takes the following nonce and confirms.
    const next = transferIntent(project, walletIndex);
    const nextResult = await runInDurableObject(sequencerStub(env, 1868, project.walletAddress), (instance) => instance.submit(next));
    expect(nextResult.ok).toBe(true);
    expect(await confirmedNonce(next.transactionId, project.apiKey)).toBe(nonceBefore + 1);
  }, 120_000);
});

describe("a persist that took too long", () => {
  it("leaves the broadcast to the watcher, which sends the bytes once their row is there", async () => {
    const { project, walletIndex, nextNonce } = await fundedProject("Slow persist");
    const now = Date.now.bind(Date);
    // The watcher is told, then the clock reads 31 s later, as if the writes had taken that long.
    const slow = (id: string): WatcherPort => ({
      track: async (record) => {
        await watcherStub(env, id).track(record);
        vi.spyOn(Date, "now").mockImplementation(() => now() + 31_000);
      },
      forget: () => watcherStub(env, id).forget(),
      record: () => watcherStub(env, id).record(),
    });
    const intent = transferIntent(project, walletIndex);
    const result = await withSequencerStorage(project, (storage) => newCore(storage, slow).submit(intent)).finally(() => vi.restoreAllMocks());
    expect(result.ok).toBe(true);
    const hash = result.ok ? result.transaction.transactionHash : null;
    // Not sent by the sequencer: the node learns of it from the watcher's next poll.
    expect(await rpc("eth_getTransactionByHash", [hash])).toBeNull();
    const confirmed = await waitForTransaction(intent.transactionId, project.apiKey);
    expect([confirmed.status, confirmed.transactionHash]).toEqual(["confirmed", hash]);
    expect((await chainClient().getTransaction({ hash: confirmed.transactionHash })).nonce).toBe(nextNonce);
  });
});

