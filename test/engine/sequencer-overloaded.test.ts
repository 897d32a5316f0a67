// A Durable Object call refused with `overloaded` never reached the object (its queue was full),
// so nothing was sent: the request is a retryable 429, and its Idempotency-Key is free again.
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { Address } from "viem";
import { chainClient, fund, waitForTransaction } from "../helpers/chain";
import { call, expectEnvelope } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";

let project: TestProject;
const recipient = "0x976EA74026E726554dB657fA54763abd0C3a0aa9";

beforeAll(async () => {
  project = await createTestProject("Overloaded sequencer");
  await fund(project.walletAddress);
});

afterEach(() => vi.restoreAllMocks());

function overloadSequencer(flags: { remote?: boolean } = {}) {
  const namespace = env.WALLET_SEQUENCER;
  const realGet = namespace.get.bind(namespace);
  vi.spyOn(namespace, "get").mockImplementation((id, options) => {
    const stub = realGet(id, options);
    return new Proxy(stub, {
      get: (target, property) =>
        property === "submit"
          ? async () => {
              throw Object.assign(new Error("Durable Object is overloaded. Too many requests queued."), { overloaded: true, retryable: true, ...flags });
            }
          : Reflect.get(target, property),
    });
  });
}

describe("an overloaded wallet sequencer", () => {
  it("answers 429 with Retry-After, sends nothing, and frees the Idempotency-Key", async () => {
    const nonce = () => chainClient().getTransactionCount({ address: project.walletAddress as Address, blockTag: "pending" });
    const before = await nonce();
    const headers = { "idempotency-key": `overloaded-${crypto.randomUUID()}` };
    const body = { type: "native", recipientAddress: recipient, amount: "5" };

    overloadSequencer();
    const refused = await call("/v1/project-wallet/transfer", { secretKey: project.secretKey, body, headers });
    expectEnvelope(refused, 429, "rate_limited");
    expect(refused.headers.get("retry-after")).toBe("1");
    vi.restoreAllMocks();

    expect(await nonce()).toBe(before);
    const listed = await call("/v1/transactions", { apiKey: project.apiKey });
    expect(listed.body.data).toEqual([]);

    const retried = await call("/v1/project-wallet/transfer", { secretKey: project.secretKey, body, headers });
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect((await waitForTransaction(retried.body.id, project.apiKey)).status).toBe("confirmed");
    expect(await nonce()).toBe(before + 1);
  });

  it("keeps its 429 and Retry-After when the key cannot be freed, tried twice and logged", async () => {
    const headers = { "idempotency-key": `unfreed-${crypto.randomUUID()}` };
    const body = { type: "native", recipientAddress: recipient, amount: "7" };
    overloadSequencer();
    const realPrepare = env.DB.prepare.bind(env.DB);
    const refusedDelete = () => Promise.reject(new Error("D1 is unavailable"));
    const failing = { bind: () => failing, run: refusedDelete, all: refusedDelete, raw: refusedDelete, first: refusedDelete } as unknown as D1PreparedStatement;
    let deletes = 0;
    vi.spyOn(env.DB, "prepare").mockImplementation((sql: string) => (/^delete from "idempotency_keys"/i.test(sql) ? (deletes++, failing) : realPrepare(sql)));
    const logged: string[] = [];
    vi.spyOn(console, "error").mockImplementation((line: string) => void logged.push(line));

    const refused = await call("/v1/project-wallet/transfer", { secretKey: project.secretKey, body, headers });
    expectEnvelope(refused, 429, "rate_limited");
    expect(refused.headers.get("retry-after")).toBe("1");
    expect(deletes).toBe(2);
    expect(logged.map((line) => JSON.parse(line).where)).toContain("idempotency.abandon");
    vi.restoreAllMocks();
    // The key could not be freed: it stays in progress until it expires, and nothing was sent.
    expectEnvelope(await call("/v1/project-wallet/transfer", { secretKey: project.secretKey, body, headers }), 409, "conflict");
  });

  it("treats an overloaded error thrown inside the object (remote) as an unknown outcome, kept under the key", async () => {
    const headers = { "idempotency-key": `remote-${crypto.randomUUID()}` };
    const body = { type: "native", recipientAddress: recipient, amount: "6" };
    overloadSequencer({ remote: true });
    const unknown = expectEnvelope(await call("/v1/project-wallet/transfer", { secretKey: project.secretKey, body, headers }), 500, "internal_error");
    expect(unknown.message).toContain("may have been sent");
    vi.restoreAllMocks();
    // The key keeps that answer: a retry replays it instead of risking a second send.
    const replayed = await call("/v1/project-wallet/transfer", { secretKey: project.secretKey, body, headers });
    expect([replayed.status, replayed.headers.get("idempotent-replayed")]).toEqual([500, "true"]);
  });
});
