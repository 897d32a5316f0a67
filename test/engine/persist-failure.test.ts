// The sequencer persists a transaction in two places (its TxWatcher and the D1 row) before the
// broadcast. When either write fails, nothing may go out: no watcher left to send bytes the
// caller never heard of, no pending row without a watcher, and the nonce free for the next one.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Address } from "viem";
import { watcherStub, sequencerStub } from "../../src/durable-objects/stubs";
import { SequencerCore, type WatcherPort } from "../../src/services/engine/sequencer";
import type { TxIntent } from "../../src/services/engine/types";
import { chainClient, fund, waitForTransaction } from "../helpers/chain";
import { createTestProject } from "../helpers/projects";

const unavailableWatcher: WatcherPort = {
  track: () => Promise.reject(new Error("the watcher's storage is unavailable")),
  forget: () => Promise.resolve(),
};
const noGapCheck = () => Promise.resolve();

describe("a transaction that cannot be stored", () => {
  it("is not sent, leaves no row, and gives its nonce to the next transaction", async () => {
    const project = await createTestProject("Storage trouble");
    await fund(project.walletAddress);
    const { wallet_index: walletIndex } = (await env.DB.prepare("select wallet_index from projects where id = ?").bind(project.id).first<{ wallet_index: number }>())!;
    const nonceBefore = await chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "pending" });
    const transfer = (): TxIntent => ({
      transactionId: crypto.randomUUID(),
      jobId: crypto.randomUUID(),
      projectId: project.id,
      walletIndex,
      walletAddress: project.walletAddress,
      chainId: 1868,
      kind: "transfer",
      subjectId: null,
      to: "0x000000000000000000000000000000000000dEaD",
      data: "0x",
      value: "1",
      metadata: null,
      payload: null,
      revertAbi: "none",
    });

    const refused = transfer();
    const sent = transfer();
    const [refusedResult, sentResult] = await runInDurableObject(sequencerStub(env, 1868, project.walletAddress), async (_instance, state) => {
      const failing = new SequencerCore(env, state.storage, () => unavailableWatcher, noGapCheck);
      const first = await failing.submit(refused);
      // A fresh core reads the nonce state the failed submit left in storage.
      const working = new SequencerCore(env, state.storage, (id) => watcherStub(env, id), noGapCheck);
      return [first, await working.submit(sent)];
    });

    expect(refusedResult).toEqual({
      ok: false,
      error: { code: "internal_error", message: "the transaction could not be stored, so it was not sent; the request can be retried" },
    });
    expect(await env.DB.prepare("select id from transactions where id = ?").bind(refused.transactionId).first()).toBeNull();
    expect(sentResult.ok).toBe(true);
    const settled = await waitForTransaction(sent.transactionId, project.apiKey);
    expect(settled.status).toBe("confirmed");
    const onChain = await chainClient().getTransaction({ hash: settled.transactionHash });
    expect(onChain.nonce).toBe(nonceBefore);
    expect(await chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "pending" })).toBe(nonceBefore + 1);
  });
});
