// What a wallet's sequencer tells a watcher that would send a transaction's bytes itself
// (decision 100): no while the request is being answered or for 10 minutes after a withdrawal,
// a restart of the object included (decision 113).
import { describe, expect, it } from "vitest";
import { BroadcastDecisions, WITHDRAWN_PREFIX, WITHDRAWN_REMEMBERED_MS } from "../../src/services/engine/broadcast-decisions";
import { newCore, withSequencerStorage } from "../helpers/engine";

describe("broadcast decisions", () => {
  it("says no while the request is open and after a withdrawal, until the withdrawal is 10 minutes old", () => {
    let now = 1_000_000;
    const decisions = new BroadcastDecisions(null, () => now);
    expect(decisions.mayRebroadcast("a")).toBe(true);
    decisions.open("a");
    expect(decisions.mayRebroadcast("a")).toBe(false);
    decisions.close("a");
    expect(decisions.mayRebroadcast("a")).toBe(true);

    decisions.open("b");
    decisions.withdraw("b");
    decisions.close("b");
    expect(decisions.mayRebroadcast("b")).toBe(false);
    now += WITHDRAWN_REMEMBERED_MS - 1;
    expect(decisions.mayRebroadcast("b")).toBe(false);
    now += 1;
    expect(decisions.mayRebroadcast("b")).toBe(true);

    // A withdrawal that could not be completed leaves the bytes to the watcher.
    decisions.withdraw("c");
    decisions.unwithdraw("c");
    expect(decisions.mayRebroadcast("c")).toBe(true);
  });

  it("remembers at most 10,000 withdrawals, forgetting the oldest first", () => {
    const decisions = new BroadcastDecisions(null, () => 5_000);
    for (let i = 0; i <= 10_000; i++) decisions.withdraw(`t${i}`);
    expect(decisions.mayRebroadcast("t0")).toBe(true);
    expect(decisions.mayRebroadcast("t1")).toBe(false);
    expect(decisions.mayRebroadcast("t10000")).toBe(false);
  });
});

describe("broadcast decisions across a restart", () => {
  it("a withdrawal written down is still a no for a new instance on the same storage, until it is 10 minutes old", async () => {
    const wallet = `0x${crypto.randomUUID().replaceAll("-", "").slice(0, 40)}`;
    await withSequencerStorage({ walletAddress: wallet }, async (storage) => {
      let now = Date.now();
      const before = new BroadcastDecisions(storage, () => now);
      before.withdraw("withdrawn");
      before.withdraw("taken-back-again");
      before.unwithdraw("taken-back-again");

      const restarted = new BroadcastDecisions(storage, () => now);
      await restarted.load();
      expect(restarted.mayRebroadcast("withdrawn")).toBe(false);
      expect(restarted.mayRebroadcast("taken-back-again")).toBe(true);

      now += WITHDRAWN_REMEMBERED_MS;
      const later = new BroadcastDecisions(storage, () => now);
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
