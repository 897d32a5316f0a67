// Durable Objects of one isolate share module state. A chain read that parks its in-flight promise
// in module state (viem's getBlockNumber does, to dedupe callers) makes one object await another
// object's request: workerd then resumes the waiter in the wrong context ("Cannot perform I/O on
// behalf of a different Durable Object") or never settles it once the owner's context is gone
// (both seen in the soak's wrangler log). So every object must send its own request. The proxy
// holds each call long enough for the objects' reads to overlap, and counts them.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { blockTimestampMs } from "../../src/chain/log-reader";
import { blockNumber, quoteFees, transactionCount } from "../../src/chain/transactions";
import { watcherStub } from "../../src/services/durable-object-stubs";
import { getChain } from "../../src/lib/chains";

interface ProxyStats {
  byMethod: Record<string, number>;
}

async function setFaults(rules: unknown[]): Promise<ProxyStats> {
  const response = await fetch(`${env.PROXY_URL}/__faults`, { method: "POST", body: JSON.stringify(rules) });
  return ((await response.json()) as { stats: ProxyStats }).stats;
}

const rpcUrl = () => getChain(env, 1868).rpcUrl;
const wallet = "0x976EA74026E726554dB657fA54763abd0C3a0aa9";

/** Runs `read` in three watcher objects at once; each then writes its own storage, as the alarm does. */
async function inThreeObjects(method: string, read: () => Promise<unknown>) {
  const before = (await setFaults([{ method, action: "delay", delayMs: 400 }])).byMethod[method] ?? 0;
  const outcomes = await Promise.all(
    [1, 2, 3].map(() =>
      runInDurableObject(watcherStub(env, crypto.randomUUID()), async (_instance, state) => {
        const outcome = await read().then(
          () => "answered",
          (error: Error) => `failed: ${error.message}`,
        );
        await state.storage.put("after-read", outcome);
        return outcome;
      }),
    ),
  );
  const sent = ((await setFaults([])).byMethod[method] ?? 0) - before;
  return { outcomes, sent };
}

describe("chain reads from several Durable Objects at once", () => {
  afterEach(() => setFaults([]));

  it("each object sends its own block-number request", async () => {
    expect(await inThreeObjects("eth_blockNumber", () => blockNumber(rpcUrl()))).toEqual({ outcomes: ["answered", "answered", "answered"], sent: 3 });
  });

  it("each object sends its own nonce request", async () => {
    const read = () => transactionCount(rpcUrl(), wallet, "latest");
    expect(await inThreeObjects("eth_getTransactionCount", read)).toEqual({ outcomes: ["answered", "answered", "answered"], sent: 3 });
  });

  it("each object sends its own request for one block's time (watchers settling buys mined together)", async () => {
    const read = () => blockTimestampMs(rpcUrl(), 1);
    expect(await inThreeObjects("eth_getBlockByNumber", read)).toEqual({ outcomes: ["answered", "answered", "answered"], sent: 3 });
  });

  it("each object sends its own latest-block request for a fee quote", async () => {
    expect(await inThreeObjects("eth_getBlockByNumber", () => quoteFees(rpcUrl()))).toEqual({ outcomes: ["answered", "answered", "answered"], sent: 3 });
  });
});
