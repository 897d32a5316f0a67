// What a wallet's sequencer tells a watcher that would send a transaction's bytes itself
// (decision 100): no while the request is being answered or for 10 minutes after a withdrawal.
import { describe, expect, it } from "vitest";
import { BroadcastDecisions, WITHDRAWN_REMEMBERED_MS } from "../../src/services/engine/broadcast-decisions";

describe("broadcast decisions", () => {
  it("says no while the request is open and after a withdrawal, until the withdrawal is 10 minutes old", () => {
    let now = 1_000_000;
    const decisions = new BroadcastDecisions(() => now);
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
    const decisions = new BroadcastDecisions(() => 5_000);
    for (let i = 0; i <= 10_000; i++) decisions.withdraw(`t${i}`);
    expect(decisions.mayRebroadcast("t0")).toBe(true);
    expect(decisions.mayRebroadcast("t1")).toBe(false);
    expect(decisions.mayRebroadcast("t10000")).toBe(false);
  });
});
