// claimLog's rule (decision 75): a transaction claimed from one block is not claimed again from
// another, whichever path (receipt handler or indexer) comes second; logs of the same block, and
// claims that carry no block hash, are claimed log by log.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { claimLog, newLogGuard } from "../../src/services/chain-events/guard";
import { randomHash } from "../fixtures/seed";

const claim = async (transactionHash: string, logIndex: number, blockHash: string | null) => {
  const [result] = await env.DB.batch([claimLog(env.DB, newLogGuard(1868, { transactionHash, logIndex, blockNumber: 7, blockHash }))]);
  return result!.meta.changes;
};

describe("claiming a log", () => {
  it("refuses a transaction's log from another block once the transaction was claimed from one", async () => {
    const [transaction, applied, reorged] = [randomHash(), randomHash(), randomHash()];
    expect(await claim(transaction, 4, applied)).toBe(1);
    expect(await claim(transaction, 5, applied)).toBe(1);
    expect(await claim(transaction, 6, reorged)).toBe(0);
    expect(await claim(transaction, 4, applied)).toBe(0);
    expect(await claim(randomHash(), 6, reorged)).toBe(1);
  });

  it("keeps the rule when the claim carries a condition of its own (the receipt path's)", async () => {
    const [transaction, applied] = [randomHash(), randomHash()];
    expect(await claim(transaction, 0, applied)).toBe(1);
    const fromAnotherBlock = newLogGuard(1868, { transactionHash: transaction, logIndex: 3, blockNumber: 7, blockHash: randomHash() });
    const fromTheSameBlock = newLogGuard(1868, { transactionHash: transaction, logIndex: 4, blockNumber: 7, blockHash: applied });
    const always = { sql: "? = 1 or ? = 1", params: [1, 0] };
    const [refused, taken] = await env.DB.batch([claimLog(env.DB, fromAnotherBlock, always), claimLog(env.DB, fromTheSameBlock, always)]);
    expect([refused!.meta.changes, taken!.meta.changes]).toEqual([0, 1]);
  });

  it("lets claims without a block hash neither stop nor be stopped", async () => {
    const [old, fresh] = [randomHash(), randomHash()];
    expect(await claim(old, 0, null)).toBe(1);
    expect(await claim(old, 1, randomHash())).toBe(1);
    expect(await claim(fresh, 0, randomHash())).toBe(1);
    expect(await claim(fresh, 1, null)).toBe(1);
  });
});
