// A refusal of the sequencer's broadcast is looked up for a second before the transaction is
// taken back; the watcher's first poll comes sooner. Its copy of the bytes must not go out in
// that second: the request would be answered "not sent" for a transaction that is then mined.
// Decision 100.
import { describe, expect, it, vi } from "vitest";
import type { Address } from "viem";
import { chainClient, fund } from "../helpers/chain";
import { interceptFetch } from "../helpers/fetch-spy";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject } from "../helpers/projects";

const jsonRpc = (id: unknown, payload: Record<string, unknown>) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", id, ...payload }), { headers: { "content-type": "application/json" } });

describe("a refused broadcast still being looked up", () => {
  it("is not rebroadcast by its watcher, so the refusal the request gets is the whole story", async () => {
    const project = await createTestProject("Refusal window");
    await fund(project.walletAddress);
    const recipient = `0x${crypto.randomUUID().replaceAll("-", "").padEnd(40, "7")}` as Address;
    const nonce = () => chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "pending" });
    const nonceBefore = await nonce();

    // The first broadcast is refused (a gateway's wrong answer: the wallet can pay) and lookups of
    // the hash find nothing; every later broadcast reaches the node.
    let broadcasts = 0;
    interceptFetch(async (request, pass) => {
      const message = request.body ? (JSON.parse(request.body) as { id: unknown; method: string }) : undefined;
      if (message?.method === "eth_sendRawTransaction" && broadcasts++ === 0) {
        return jsonRpc(message.id, { error: { code: -32000, message: "insufficient funds for gas * price + value" } });
      }
      if (message?.method === "eth_getTransactionByHash") return jsonRpc(message.id, { result: null });
      return pass();
    });
    try {
      const refused = await call("/v1/project-wallet/transfer", {
        secretKey: project.secretKey,
        body: { type: "native", recipientAddress: recipient, amount: "1" },
      });
      expectEnvelope(refused, 422, "insufficient_funds");
      // The watcher polled (every 200 ms here) while the refusal was looked up, and again since.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    } finally {
      vi.restoreAllMocks();
    }
    expect(broadcasts).toBe(1);
    expect(await nonce()).toBe(nonceBefore);
    expect(await chainClient().getBalance({ address: recipient })).toBe(0n);
  });
});
