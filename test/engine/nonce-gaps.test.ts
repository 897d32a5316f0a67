// Nonces nothing else will ever send must not stay gaps: the WalletSequencer's gap check fills
// released ones, and takes back the transactions a restart cut off before their watcher stored
// them (decision 30).
import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import type { Address } from "viem";
import { watcherStub } from "../../src/services/durable-object-stubs";
import { SequencerCore, type WatcherPort } from "../../src/services/engine/sequencer";
import { ORPHANED_NONCE_AGE_MS } from "../../src/services/engine/wallet-nonces";
import { chainClient, fund, waitForTransaction } from "../helpers/chain";
import { d1FailingFor } from "../helpers/d1-recorder";
import { interceptFetch } from "../helpers/fetch-spy";
import { confirmedNonce, fundedProject, newCore, noGapCheck, spendOutsideTheService, storedRow, transferIntent, until, walletIndexOf, withSequencerStorage } from "../helpers/engine";
import { call } from "../helpers/http";
import { createTestProject } from "../helpers/projects";

interface StoredNonces {
  next: number;
  released: number[];
  inflight?: { nonce: number; transactionId: string; at: number }[];
  filling?: number[];
}

/** The wallet's transaction with this nonce among the last few blocks. */
async function minedFrom(wallet: Address, nonce: number) {
  const head = await chainClient().getBlockNumber();
  for (let number = head; number >= 0n && number > head - 5n; number--) {
    const block = await chainClient().getBlock({ blockNumber: number, includeTransactions: true });
    const found = block.transactions.find((tx) => tx.from.toLowerCase() === wallet.toLowerCase() && tx.nonce === nonce);
    if (found) return found;
  }
  return undefined;
}

describe("the sequencer's gap check", () => {
  it("takes back a transaction a restart cut off before its watcher stored it, so its nonce is reused", async () => {
    const { project, walletIndex, nextNonce: nonceBefore } = await fundedProject("Cut off");
    // The watcher never hears of it: the object is "reset" while `track` is on its way.
    const cutOff = (id: string): WatcherPort => ({
      track: () => new Promise<void>(() => {}),
      forget: () => watcherStub(env, id).forget(),
      record: () => watcherStub(env, id).record(),
    });
    const lost = transferIntent(project, walletIndex);
    const next = transferIntent(project, walletIndex);

    const nextResult = await withSequencerStorage(project, async (storage) => {
      void newCore(storage, cutOff).submit(lost);
      // Its row lands; then the instance is gone, its nonce written down as in flight.
      await until(() => env.DB.prepare("select id from transactions where id = ?").bind(lost.transactionId).first(), (row) => row !== null);
      const stored = (await storage.get<StoredNonces>("nonce"))!;
      expect(stored.inflight?.map((entry) => [entry.nonce, entry.transactionId])).toEqual([[nonceBefore, lost.transactionId]]);
      // The restart happened a while ago.
      await storage.put("nonce", { ...stored, inflight: stored.inflight!.map((entry) => ({ ...entry, at: entry.at - ORPHANED_NONCE_AGE_MS - 1_000 })) });

      const restarted = newCore(storage);
      await restarted.checkGaps(walletIndex, 1868);
      return restarted.submit(next);
    });

    expect(await storedRow(lost.transactionId)).toBeNull();
    expect(nextResult.ok).toBe(true);
    expect(await confirmedNonce(next.transactionId, project.apiKey)).toBe(nonceBefore);
  });

  it("takes back a withdrawal whose 'forget' did its work but lost its answer, so its nonce is reused", async () => {
    const { project, walletIndex, nextNonce: nonceBefore } = await fundedProject("Forget answer lost");
    // Both calls reach the watcher and do their work; both answers are lost.
    const answersLost = (id: string): WatcherPort => ({
      track: async (record) => {
        await watcherStub(env, id).track(record);
        throw new Error("track's answer was lost");
      },
      forget: async () => {
        await watcherStub(env, id).forget();
        throw new Error("forget's answer was lost");
      },
      record: () => watcherStub(env, id).record(),
    });
    const withdrawn = transferIntent(project, walletIndex);
    const next = transferIntent(project, walletIndex);

    const nextResult = await withSequencerStorage(project, async (storage) => {
      const refused = await newCore(storage, answersLost).submit(withdrawn);
      expect(refused.ok).toBe(false);
      const stored = (await storage.get<StoredNonces>("nonce"))!;
      expect(stored.inflight?.map((entry) => entry.nonce)).toEqual([nonceBefore]);
      await storage.put("nonce", { ...stored, inflight: stored.inflight!.map((entry) => ({ ...entry, at: entry.at - ORPHANED_NONCE_AGE_MS - 1_000 })) });
      const restarted = newCore(storage);
      await restarted.checkGaps(walletIndex, 1868);
      expect((await storage.get<StoredNonces>("nonce"))?.inflight).toEqual([]);
      return restarted.submit(next);
    });

    expect(nextResult.ok).toBe(true);
    expect(await confirmedNonce(next.transactionId, project.apiKey)).toBe(nonceBefore);
  });

  it("leaves a withdrawal whose row could not be deleted to the gap check, which deletes it and reuses its nonce", async () => {
    const { project, walletIndex, nextNonce: nonceBefore } = await fundedProject("Row delete failed");
    // The watcher cannot store the record (a definite refusal, so a withdrawal); forget works.
    const unstored = (id: string): WatcherPort => ({
      track: () => Promise.reject(new Error("the watcher's storage is unavailable")),
      forget: () => watcherStub(env, id).forget(),
      record: () => watcherStub(env, id).record(),
    });
    const withdrawn = transferIntent(project, walletIndex);
    const next = transferIntent(project, walletIndex);
    const rowOf = (id: string) => env.DB.prepare("select status from transactions where id = ?").bind(id).first<{ status: string }>();

    const nextResult = await withSequencerStorage(project, async (storage) => {
      const refused = await new SequencerCore({ ...env, DB: d1FailingFor(/^delete from "transactions"/i) }, storage, unstored, noGapCheck).submit(withdrawn);
      expect(refused.ok).toBe(false);
      // The row is still there, so its nonce is not free yet: it waits for the gap check.
      expect(await rowOf(withdrawn.transactionId)).toEqual({ status: "pending" });
      const stored = (await storage.get<StoredNonces>("nonce"))!;
      expect([stored.inflight?.map((entry) => entry.nonce), stored.released]).toEqual([[nonceBefore], []]);
      await storage.put("nonce", { ...stored, inflight: stored.inflight!.map((entry) => ({ ...entry, at: entry.at - ORPHANED_NONCE_AGE_MS - 1_000 })) });
      const restarted = newCore(storage);
      await restarted.checkGaps(walletIndex, 1868);
      expect((await storage.get<StoredNonces>("nonce"))?.inflight).toEqual([]);
      return restarted.submit(next);
    });

    expect(await rowOf(withdrawn.transactionId)).toBeNull();
    expect(nextResult.ok).toBe(true);
    expect(await confirmedNonce(next.transactionId, project.apiKey)).toBe(nonceBefore);
  });

  it("leaves the nonce of a transaction settled a day before alone, though its watcher has emptied itself", async () => {
    const { project, walletIndex, nextNonce: nonceBefore } = await fundedProject("Quiet day");
    const settled = transferIntent(project, walletIndex);
    // A day after settling, the watcher has deleted its record (TxWatcher's 24 h clean-up).
    const emptied = (): WatcherPort => ({ track: () => Promise.resolve(), forget: () => Promise.resolve(), record: () => Promise.resolve(null) });

    await withSequencerStorage(project, async (storage) => {
      expect((await newCore(storage).submit(settled)).ok).toBe(true);
      expect(await confirmedNonce(settled.transactionId, project.apiKey)).toBe(nonceBefore);
      // Its in-flight entry was struck off in memory only, so the stored state still has it.
      const stored = (await storage.get<StoredNonces>("nonce"))!;
      expect([stored.next, stored.inflight?.map((entry) => entry.nonce)]).toEqual([nonceBefore + 1, [nonceBefore]]);
      await storage.put("nonce", { ...stored, inflight: stored.inflight!.map((entry) => ({ ...entry, at: entry.at - 24 * 60 * 60 * 1000 })) });

      await newCore(storage, emptied).checkGaps(walletIndex, 1868);
      const after = (await storage.get<StoredNonces>("nonce"))!;
      // The mined nonce is neither handed out again nor queued for reuse.
      expect([after.next, after.released, after.inflight]).toEqual([nonceBefore + 1, [], []]);
    });
    expect(await env.DB.prepare("select status from transactions where id = ?").bind(settled.transactionId).first()).toEqual({ status: "confirmed" });
  });

  it("does not reuse the nonce of a transaction a restart cut off when another transaction has taken it since", async () => {
    const { project, walletIndex, wallet, nextNonce: nonceBefore } = await fundedProject("Cut off, nonce taken");
    const cutOff = (id: string): WatcherPort => ({
      track: () => new Promise<void>(() => {}),
      forget: () => watcherStub(env, id).forget(),
      record: () => watcherStub(env, id).record(),
    });
    const lost = transferIntent(project, walletIndex);

    await withSequencerStorage(project, async (storage) => {
      void newCore(storage, cutOff).submit(lost);
      await until(() => storedRow(lost.transactionId), (row) => row !== null);
      const stored = (await storage.get<StoredNonces>("nonce"))!;
      await storage.put("nonce", { ...stored, inflight: stored.inflight!.map((entry) => ({ ...entry, at: entry.at - ORPHANED_NONCE_AGE_MS - 1_000 })) });
      // The wallet's next nonce goes to a transaction sent outside the service.
      await spendOutsideTheService(wallet);
      await until(() => chainClient().getTransactionCount({ address: wallet }), (mined) => mined > nonceBefore);

      await newCore(storage).checkGaps(walletIndex, 1868);
      const after = (await storage.get<StoredNonces>("nonce"))!;
      expect([after.next, after.released, after.inflight]).toEqual([nonceBefore + 1, [], []]);
    });
    expect(await storedRow(lost.transactionId)).toBeNull();
  });

  it("fills a released nonce nobody reused and watches the filler until it is mined", async () => {
    const { project, walletIndex, wallet, nextNonce: nonce } = await fundedProject("Released");

    const gapCheck = () =>
      withSequencerStorage(project, async (storage) => {
        await newCore(storage).checkGaps(walletIndex, 1868);
        return (await storage.get<StoredNonces>("nonce"))!;
      });
    // A transaction at `nonce + 1` took its nonce after `nonce` was given back.
    await withSequencerStorage(project, (storage) => storage.put<StoredNonces>("nonce", { next: nonce + 2, released: [nonce] }));
    const afterFirst = await gapCheck();
    expect([afterFirst.released, afterFirst.filling]).toEqual([[], [nonce]]);

    await until(() => chainClient().getTransactionCount({ address: wallet, blockTag: "latest" }), (count) => count > nonce);
    const ours = await minedFrom(wallet, nonce);
    expect(ours && { to: ours.to, value: ours.value }).toEqual({ to: wallet.toLowerCase(), value: 0n });

    const afterMined = await gapCheck();
    expect([afterMined.released, afterMined.filling]).toEqual([[], []]);
  });

  it("gives a filler its own bump budget and counts its re-prices, so neither is re-priced without end", async () => {
    const project = await createTestProject("Filler budget");
    const walletIndex = await walletIndexOf(project.id);
    const intent = transferIntent(project, walletIndex);
    const fees = { maxFeePerGas: "2000000000", maxPriorityFeePerGas: "1000000000" };
    const exhausted = {
      id: intent.transactionId,
      projectId: project.id,
      chainId: 1868,
      walletAddress: project.walletAddress,
      walletIndex,
      kind: intent.kind,
      subjectId: null,
      nonce: 0,
      to: intent.to,
      data: "0x",
      value: "1",
      gas: "21000",
      ...fees,
      raw: "0x02",
      hashes: [{ hash: `0x${"1".repeat(64)}`, purpose: "original" as const, ...fees }],
      createdAt: Date.now(),
      pendingSinceBlock: null,
      polls: 40,
      bumps: 10,
      state: "sent" as const,
    };
    const [filler, bumped] = await withSequencerStorage(project, async (storage) => {
      const core = newCore(storage);
      const filled = await core.fill(exhausted);
      return [filled, await core.bump(filled)];
    });
    expect([filler.state, filler.bumps, filler.hashes.at(-1)?.purpose]).toEqual(["filling", 0, "fill"]);
    expect([bumped.bumps, bumped.hashes.at(-1)?.purpose, bumped.hashes.length]).toEqual([1, "fill", 3]);
  });

  it("moves past a nonce the wallet used outside the service, sending the transaction once", async () => {
    const project = await createTestProject("Used elsewhere");
    await fund(project.walletAddress);
    const wallet = project.walletAddress as Address;
    const transfer = () =>
      call("/v1/project-wallet/transfer", {
        secretKey: project.secretKey,
        body: { type: "native", recipientAddress: "0x000000000000000000000000000000000000dEaD", amount: "1" },
      });
    const first = await transfer();
    expect((await waitForTransaction(first.body.id, project.apiKey)).status).toBe("confirmed");
    const count = await chainClient().getTransactionCount({ address: wallet });

    // The sequencer still thinks `count` is next; the wallet spends it elsewhere.
    await spendOutsideTheService(wallet);
    await until(() => chainClient().getTransactionCount({ address: wallet }), (mined) => mined > count);

    const second = await transfer();
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    const confirmed = await waitForTransaction(second.body.id, project.apiKey);
    expect(confirmed.status).toBe("confirmed");
    const row = await env.DB.prepare("select nonce from transactions where id = ?").bind(second.body.id).first<{ nonce: number }>();
    expect([row?.nonce, (await chainClient().getTransaction({ hash: confirmed.transactionHash })).nonce]).toEqual([count + 1, count + 1]);
    expect(await chainClient().getTransactionCount({ address: wallet, blockTag: "pending" })).toBe(count + 2);
  });

  it("withdraws a transaction that cannot be signed, so the wallet's next transaction takes its nonce", async () => {
    const { project, walletIndex, nextNonce: nonceBefore } = await fundedProject("Unsignable");
    // A fixed gas limit skips the estimate, so the first thing to refuse the call is the signer.
    const unsignable = { ...transferIntent(project, walletIndex), to: "0x1234", gasLimit: "21000" };
    const next = transferIntent(project, walletIndex);
    const [refused, sent] = await withSequencerStorage(project, async (storage) => {
      const core = newCore(storage);
      const first = await core.submit(unsignable).catch((error: unknown) => ({ threw: String(error) }));
      return [first, await core.submit(next)];
    });

    expect(refused).toMatchObject({ ok: false, error: { code: "internal_error" } });
    expect(JSON.stringify(refused)).toContain("could not be signed");
    expect(await storedRow(unsignable.transactionId)).toBeNull();
    expect(sent.ok).toBe(true);
    expect(await confirmedNonce(next.transactionId, project.apiKey)).toBe(nonceBefore);
  });

  it("withdraws a transaction whose nonce was used elsewhere when the chain cannot be asked where to move on", async () => {
    const { project, walletIndex, wallet } = await fundedProject("Resync unreachable");
    const first = transferIntent(project, walletIndex);
    const second = transferIntent(project, walletIndex);
    const third = transferIntent(project, walletIndex);
    const results = await withSequencerStorage(project, async (storage) => {
      const core = newCore(storage);
      const sent = await core.submit(first);
      expect((await waitForTransaction(first.transactionId, project.apiKey)).status).toBe("confirmed");
      const count = await chainClient().getTransactionCount({ address: wallet });
      // The core still thinks `count` is next; the wallet spends it elsewhere and it is mined.
      await spendOutsideTheService(wallet);
      await until(() => chainClient().getTransactionCount({ address: wallet }), (mined) => mined > count);

      // After the node refuses the bytes, the one call that would move past the spent nonce fails.
      let broadcast = false;
      interceptFetch(async (request, pass) => {
        const method = request.body ? (JSON.parse(request.body) as { method?: string }).method : undefined;
        if (method === "eth_sendRawTransaction") broadcast = true;
        if (broadcast && method === "eth_getTransactionCount" && request.body?.includes('"pending"')) return new Response("bad gateway", { status: 502 });
        return pass();
      });
      let refused;
      try {
        refused = await core.submit(second).catch((error: unknown) => ({ threw: String(error) }));
      } finally {
        vi.restoreAllMocks();
      }
      // The spent nonce is moved past without the chain, never offered again.
      const afterRefusal = await storage.get<StoredNonces>("nonce");
      return { sent, count, refused, afterRefusal, third: await core.submit(third) };
    });

    expect(results.sent.ok).toBe(true);
    expect(results.refused).toMatchObject({ ok: false, error: { code: "chain_unavailable" } });
    expect(results.afterRefusal?.next).toBe(results.count + 1);
    expect(results.afterRefusal?.released).not.toContain(results.count);
    expect(await storedRow(second.transactionId)).toBeNull();
    expect(await watcherStub(env, second.transactionId).record()).toBeNull();
    expect(results.third.ok).toBe(true);
    expect(await confirmedNonce(third.transactionId, project.apiKey)).toBe(results.count + 1);
  });
});
