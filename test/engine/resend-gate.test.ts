// What a wallet's sequencer tells a watcher that would send a transaction's bytes itself
// (decision 100): no while the request is being answered or for 10 minutes after a withdrawal,
// a restart of the object included (decision 113).
import { describe, expect, it } from "vitest";
import { ResendGate, WITHDRAWN_PREFIX, WITHDRAWN_REMEMBERED_MS } from "../../src/services/engine/resend-gate";
import { newCore, withSequencerStorage } from "../helpers/engine";

describe("the resend gate", () => {
  it("says no while the request is open and after a withdrawal, until the withdrawal is 10 minutes old", () => {
    let now = 1_000_000;
    const gate = new ResendGate(null, () => now);
    expect(gate.mayRebroadcast("a")).toBe(true);
    gate.answering("a");
    expect(gate.mayRebroadcast("a")).toBe(false);
    gate.answered("a");
    expect(gate.mayRebroadcast("a")).toBe(true);

    gate.answering("b");
    gate.withdraw("b");
    gate.answered("b");
    expect(gate.mayRebroadcast("b")).toBe(false);
    now += WITHDRAWN_REMEMBERED_MS - 1;
    expect(gate.mayRebroadcast("b")).toBe(false);
    now += 1;
    expect(gate.mayRebroadcast("b")).toBe(true);

    // A withdrawal that could not be completed leaves the bytes to the watcher.
    gate.withdraw("c");
    gate.unwithdraw("c");
    expect(gate.mayRebroadcast("c")).toBe(true);
  });

  it("remembers at most 10,000 withdrawals, forgetting the oldest first", () => {
    const gate = new ResendGate(null, () => 5_000);
    for (let i = 0; i <= 10_000; i++) gate.withdraw(`t${i}`);
    expect(gate.mayRebroadcast("t0")).toBe(true);
    expect(gate.mayRebroadcast("t1")).toBe(false);
    expect(gate.mayRebroadcast("t10000")).toBe(false);
  });
});

describe("broadcast gate across a restart", () => {
  it("a withdrawal written down is still a no for a new instance on the same storage, until it is 10 minutes old", async () => {
    const wallet = `0x${crypto.randomUUID().replaceAll("-", "").slice(0, 40)}`;
    await withSequencerStorage({ walletAddress: wallet }, async (storage) => {
      let now = Date.now();
      const before = new ResendGate(storage, () => now);
      before.withdraw("withdrawn");
      before.withdraw("taken-back-again");
      before.unwithdraw("taken-back-again");

      const restarted = new ResendGate(storage, () => now);
      await restarted.load();
      expect(restarted.mayRebroadcast("withdrawn")).toBe(false);
      expect(restarted.mayRebroadcast("taken-back-again")).toBe(true);

      now += WITHDRAWN_REMEMBERED_MS;
      const later = new ResendGate(storage, () => now);
      await later.load();
      expect(later.mayRebroadcast("withdrawn")).toBe(true);
      // Forgotten withdrawals leave nothing behind in storage.
      expect([...(await storage.list({ prefix: WITHDRAWN_PREFIX })).keys()]).toEqual([]);
    });
  });

  it("are loaded by the sequencer's restart check, which runs before the object serves anything", async () => {
    const wallet = `0x${crypto.randomUUID().replaceAll("-", "").slice(0, 40)}`;
    await withSequencerStorage({ walletAddress: wallet }, async (storage) => {
      await storage.put(`${WITHDRAWN_PREFIX}earlier-instance`, Date.now());
      const core = newCore(storage);
      expect(core.mayRebroadcast("earlier-instance")).toBe(true);
      await core.checkAfterRestart();
      expect(core.mayRebroadcast("earlier-instance")).toBe(false);
    });
  });
});
