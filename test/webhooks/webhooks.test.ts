import { createExecutionContext, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createApp } from "../../src/app";
import { dispatcherStub } from "../../src/services/durable-object-stubs";
import { AppError } from "../../src/lib/errors";
import { serviceContext } from "../../src/services/context";
import { insertPendingRow } from "../../src/services/engine/transaction-rows";
import { announcePending } from "../../src/services/project-wallet/send";
import { transactionView } from "../../src/services/engine/transaction-view";
import { DELIVERY_WINDOW_MS, deliverDue, nextAttemptAt, retryDelayMs, ROWS_PER_ENDPOINT } from "../../src/services/webhooks/deliver";
import { parseRetryAfter } from "../../src/services/webhooks/attempt";
import { checkWebhookUrl } from "../../src/services/webhooks/webhook-url";
import { enqueueWebhookStatement, webhookPayload } from "../../src/services/webhooks/events";
import { seedListing, uniqueAddress } from "../fixtures/seed";
import { ETHER, fund, waitForTransaction } from "../helpers/chain";
import { claimConfirmed, deployConfirmedDrop, setApprovalForAll } from "../helpers/drops";
import { call, expectEnvelope } from "../helpers/http";
import { transferIntent, until } from "../helpers/engine";
import { interceptFetch, recordFetches } from "../helpers/fetch-spy";
import { nextBlock, runIndex } from "../helpers/indexer";
import { createTestProject, type TestProject } from "../helpers/projects";
import { seaportJsList } from "../helpers/seaport";
import { basicFulfilment, seaportAddress, signListing } from "../helpers/seaport-basic-order";
import { freshWallet } from "../helpers/wallets";
import { failNext, hookUrl, queuedDelivery, received, verifySignature as verify } from "../helpers/webhooks";

let project: TestProject;

const register = (name: string, events: string[], key = project.secretKey) =>
  call("/v1/webhooks", { secretKey: key, body: { url: hookUrl(name), events } });

beforeAll(async () => {
  project = await createTestProject("Hooked");
  await fund(project.walletAddress);
});

describe("webhook endpoints", () => {
  it("registers, lists without secrets, and deletes", async () => {
    const created = await register("crud", ["transaction.confirmed"]);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ url: hookUrl("crud"), events: ["transaction.confirmed"] });
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const listed = await call("/v1/webhooks", { secretKey: project.secretKey });
    expect(listed.body.data.map((e: { id: string }) => e.id)).toContain(created.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
    expect((await call(`/v1/webhooks/${created.body.id}`, { secretKey: project.secretKey, method: "DELETE" })).status).toBe(204);
    expectEnvelope(await call(`/v1/webhooks/${created.body.id}`, { secretKey: project.secretKey, method: "DELETE" }), 404, "not_found");
  });

  it("replays a registration sent again under its Idempotency-Key, secret included, without storing the secret", async () => {
    const key = `register-${crypto.randomUUID()}`;
    const body = { url: hookUrl("replayed"), events: ["transaction.confirmed"] };
    const first = await call("/v1/webhooks", { secretKey: project.secretKey, body, headers: { "idempotency-key": key } });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await call("/v1/webhooks", { secretKey: project.secretKey, body, headers: { "idempotency-key": key } });
    expect([again.status, again.headers.get("idempotent-replayed")]).toEqual([201, "true"]);
    expect(again.body).toEqual(first.body);
    const stored = await env.DB.prepare("select response_body from idempotency_keys where key = ?").bind(key).first<{ response_body: string }>();
    const { secret: _secret, ...withoutSecret } = first.body;
    expect(JSON.parse(stored!.response_body)).toEqual(withoutSecret);
    expect(stored!.response_body).not.toContain("whsec_");
    const listed = await call("/v1/webhooks", { secretKey: project.secretKey });
    expect(listed.body.data.filter((endpoint: { url: string }) => endpoint.url === body.url)).toHaveLength(1);
    // The same key for another registration is a conflict, not a replay.
    expectEnvelope(
      await call("/v1/webhooks", { secretKey: project.secretKey, body: { ...body, url: hookUrl("other") }, headers: { "idempotency-key": key } }),
      409,
      "idempotency_conflict",
    );
    await call(`/v1/webhooks/${first.body.id}`, { secretKey: project.secretKey, method: "DELETE" });
  });

  it("rejects non-https URLs, unknown events, duplicates, other projects and the wrong key kind", async () => {
    const bad = (body: unknown) => call("/v1/webhooks", { secretKey: project.secretKey, body });
    expectEnvelope(await bad({ url: "http://example.com/hook", events: ["transaction.confirmed"] }), 400, "validation_error");
    expectEnvelope(await bad({ url: "ftp://example.com/hook", events: ["transaction.confirmed"] }), 400, "validation_error");
    expectEnvelope(await bad({ url: "not a url", events: ["transaction.confirmed"] }), 400, "validation_error");
    const unknown = expectEnvelope(await bad({ url: "https://example.com/hook", events: ["transaction.exploded"] }), 400, "validation_error");
    expect(unknown.details?.[0]?.path).toBe("body.events");
    expectEnvelope(await bad({ url: "https://example.com/hook", events: [] }), 400, "validation_error");
    expect((await bad({ url: "https://example.com/dup", events: ["order.filled"] })).status).toBe(201);
    expectEnvelope(await bad({ url: "https://example.com/dup", events: ["transaction.failed"] }), 409, "conflict");
    expectEnvelope(await call("/v1/webhooks", { apiKey: project.apiKey, body: { url: "https://example.com/x", events: ["order.filled"] } }), 403, "forbidden");

    const other = await createTestProject("Other hooks");
    const theirs = await register("theirs", ["order.filled"], other.secretKey);
    expectEnvelope(await call(`/v1/webhooks/${theirs.body.id}`, { secretKey: project.secretKey, method: "DELETE" }), 404, "not_found");
    expectEnvelope(await call(`/v1/webhooks/${theirs.body.id}/deliveries`, { secretKey: project.secretKey }), 404, "not_found");
  });
});

describe("registrations sent at the same time", () => {
  it("keep one endpoint per URL and at most 20 per project", async () => {
    const racer = await createTestProject("Racing hooks");
    const post = (url: string) => call("/v1/webhooks", { secretKey: racer.secretKey, body: { url, events: ["order.filled"] } });
    const twins = await Promise.all([post("https://example.com/twin"), post("https://example.com/twin")]);
    expect(twins.map((answer) => answer.status).sort()).toEqual([201, 409]);

    // 19 free places, 25 requests at once: 19 get in.
    const rush = await Promise.all(Array.from({ length: 25 }, (_, i) => post(`https://example.com/rush-${i}`)));
    expect(rush.filter((answer) => answer.status === 201)).toHaveLength(19);
    for (const refused of rush.filter((answer) => answer.status !== 201)) expectEnvelope(refused, 409, "conflict");
    const listed = await call("/v1/webhooks?limit=100", { secretKey: racer.secretKey });
    expect(listed.body.data).toHaveLength(20);
    expect(listed.body.data.filter((endpoint: { url: string }) => endpoint.url === "https://example.com/twin")).toHaveLength(1);
  });
});

// The test project turns ALLOW_LOOPBACK_WEBHOOKS on (vitest.config.ts) for the loopback receiver;
// production leaves it off, so these run the gate with it off.
describe("webhook URL gate with ALLOW_LOOPBACK_WEBHOOKS off", () => {
  const off = { ALLOW_LOOPBACK_WEBHOOKS: "false" };
  const refusal = (url: string) => {
    try {
      checkWebhookUrl(off, url);
      return null;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      return { code: error.code, path: error.details?.[0]?.path };
    }
  };

  it("refuses local and private hosts for every scheme, and still accepts public ones", () => {
    const refused = [
      "https://127.0.0.1/hook",
      "https://127.1.2.3/hook",
      "https://2130706433/hook",
      "https://0x7f.1/hook",
      "https://0177.0.0.1/hook",
      "https://127.0.0.1./hook",
      "https://[::1]/hook",
      "https://[0:0:0:0:0:0:0:1]/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://[::ffff:10.1.2.3]/hook",
      "https://[::ffff:169.254.169.254]/hook",
      "https://169.254.169.254/latest/meta-data",
      "https://10.0.0.1/hook",
      "https://172.16.0.1/hook",
      "https://172.31.255.255/hook",
      "https://192.168.1.1/hook",
      "https://0.0.0.0/hook",
      "https://0/hook",
      "https://[::]/hook",
      "https://[fe80::1]/hook",
      "https://[febf::1]/hook",
      "https://[fc00::1]/hook",
      "https://[fd12:3456::1]/hook",
      "https://localhost/hook",
      "https://LOCALHOST./hook",
      "https://api.localhost/hook",
      "http://127.0.0.1:8787/hook",
      "http://localhost/hook",
      "https://100.64.0.1/hook",
      "https://100.127.255.255/hook",
      "https://192.0.0.1/hook",
      "https://198.18.0.1/hook",
      "https://198.19.255.255/hook",
      "https://224.0.0.1/hook",
      "https://239.255.255.250/hook",
      "https://240.0.0.1/hook",
      "https://255.255.255.255/hook",
      "https://[ff02::1]/hook",
      "https://[::ffff:0:7f00:1]/hook",
      "https://[2002:7f00:1::]/hook",
      "https://[2002:a9fe:a9fe::]/hook",
      "https://[64:ff9b:1::7f00:1]/hook",
      "https://[64:ff9b:1::808:808]/hook",
    ];
    const accepted = [
      "https://example.com/hook",
      "https://8.8.8.8/hook",
      "https://172.15.255.255/hook",
      "https://172.32.0.1/hook",
      "https://192.169.0.1/hook",
      "https://169.255.0.1/hook",
      "https://11.0.0.1/hook",
      "https://[2001:db8::1]/hook",
      "https://[::ffff:8.8.8.8]/hook",
      "https://[fec0::1]/hook",
      "https://localhost.example.com/hook",
      "https://mylocalhost/hook",
      "https://100.63.255.255/hook",
      "https://100.128.0.1/hook",
      "https://198.17.255.255/hook",
      "https://198.20.0.1/hook",
      "https://223.255.255.255/hook",
      "https://192.0.1.1/hook",
      "https://[2002:808:808::]/hook",
      "https://[64:ff9b::808:808]/hook",
    ];
    const expected = { code: "validation_error", path: "body.url" };
    expect(Object.fromEntries(refused.map((url) => [url, refusal(url)]))).toEqual(Object.fromEntries(refused.map((url) => [url, expected])));
    expect(Object.fromEntries(accepted.map((url) => [url, refusal(url)]))).toEqual(Object.fromEntries(accepted.map((url) => [url, null])));
    // The flag still lets local development use the loopback receiver.
    expect(checkWebhookUrl({ ALLOW_LOOPBACK_WEBHOOKS: "true" }, "http://127.0.0.1:8787/hook")).toBe("http://127.0.0.1:8787/hook");
    expect(checkWebhookUrl({ ALLOW_LOOPBACK_WEBHOOKS: "true" }, "https://[::1]/hook")).toBe("https://[::1]/hook");
  });

  it("answers POST /v1/webhooks with 400 on body.url for a private address", async () => {
    const response = await createApp().request(
      "http://mintyard.test/v1/webhooks",
      {
        method: "POST",
        headers: { authorization: `Bearer ${project.secretKey}`, "content-type": "application/json" },
        body: JSON.stringify({ url: "https://0x7f.1/hook", events: ["transaction.confirmed"] }),
      },
      { ...env, ...off },
      createExecutionContext(),
    );
    const body = (await response.json()) as { error: { code: string; details?: { path: string }[] } };
    expect(response.status).toBe(400);
    expect(body.error.code).toBe("validation_error");
    expect(body.error.details?.[0]?.path).toBe("body.url");
    const listed = await call("/v1/webhooks", { secretKey: project.secretKey });
    expect(JSON.stringify(listed.body)).not.toContain("127.0.0.1/hook");
  });
});

describe("deliveries", () => {
  it("queues transaction.pending only while the transaction is still pending", async () => {
    const own = await createTestProject("Late pending");
    expect((await register("late-pending", ["transaction.pending"], own.secretKey)).status).toBe(201);
    const ctx = serviceContext(env);
    const intent = transferIntent(own, 0);
    const { row, announcePending: subscribed } = await insertPendingRow(ctx.db, intent, { nonce: 0, hash: `0x${"ab".repeat(32)}`, fromAddress: own.walletAddress, createdAt: new Date() });
    const pendingEvents = async () =>
      (await env.DB.prepare("select count(*) as n from webhook_deliveries where project_id = ? and event_type = 'transaction.pending'").bind(own.id).first<{ n: number }>())!.n;

    expect(subscribed).toBe(true);
    // A project whose endpoints take only final events is spared the queueing write.
    const finalOnly = await createTestProject("Final events only");
    expect((await register("final-only", ["transaction.confirmed"], finalOnly.secretKey)).status).toBe(201);
    const quiet = await insertPendingRow(ctx.db, transferIntent(finalOnly, 0), { nonce: 0, hash: `0x${"cd".repeat(32)}`, fromAddress: finalOnly.walletAddress, createdAt: new Date() });
    expect([quiet.row?.status, quiet.announcePending]).toEqual(["pending", false]);
    await announcePending(ctx, own.id, transactionView(row!));
    expect(await pendingEvents()).toBe(1);
    // Settled before the request got round to announcing it: its final event is already queued.
    await env.DB.prepare("update transactions set status = 'confirmed' where id = ?").bind(intent.transactionId).run();
    await announcePending(ctx, own.id, transactionView(row!));
    expect(await pendingEvents()).toBe(1);
  });

  it("queues transaction.pending for an endpoint registered a moment ago in another isolate", async () => {
    const own = await createTestProject("Fresh endpoint");
    await fund(own.walletAddress);
    const send = async () => {
      const sent = await call("/v1/project-wallet/transfer", { secretKey: own.secretKey, body: { type: "native", recipientAddress: "0x000000000000000000000000000000000000dEaD", amount: "1" } });
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      return sent.body.id as string;
    };
    const pendingEventsFor = async (id: string) =>
      (await env.DB.prepare("select count(*) as n from webhook_deliveries where project_id = ? and event_type = 'transaction.pending' and payload like ?").bind(own.id, `%${id}%`).first<{ n: number }>())!.n;
    const insertEndpoint = (events: string[]) =>
      env.DB.prepare("insert into webhook_endpoints (id, project_id, url, events, created_at) values (?, ?, ?, ?, ?)")
        .bind(crypto.randomUUID(), own.id, hookUrl(`fresh-${events.length}`), JSON.stringify(events), Date.now())
        .run();

    // No endpoint yet: nothing to queue, and this isolate has just seen the project without one.
    expect(await pendingEventsFor(await send())).toBe(0);
    // A row whose events are not JSON (the API never writes one) does not stop a send.
    const broken = crypto.randomUUID();
    await env.DB.prepare("insert into webhook_endpoints (id, project_id, url, events, created_at) values (?, ?, ?, 'not json', ?)").bind(broken, own.id, hookUrl("fresh-broken"), Date.now()).run();
    await send();
    await env.DB.prepare("delete from webhook_endpoints where id = ?").bind(broken).run();
    // Written straight to D1, as another isolate's registration is: nothing here is told of it.
    // An endpoint for other events only still queues no pending event.
    await insertEndpoint(["transaction.confirmed"]);
    expect(await pendingEventsFor(await send())).toBe(0);
    await insertEndpoint(["transaction.pending", "transaction.confirmed"]);
    expect(await pendingEventsFor(await send())).toBe(1);

  });

  it("delivers signed transaction.pending and transaction.confirmed events to a loopback receiver", async () => {
    const endpoint = await register("tx", ["transaction.pending", "transaction.confirmed"]);
    const sent = await call("/v1/project-wallet/transfer", {
      secretKey: project.secretKey,
      body: { type: "native", recipientAddress: "0x000000000000000000000000000000000000dEaD", amount: "5" },
    });
    expect(sent.status).toBe(201);
    await waitForTransaction(sent.body.id, project.apiKey);
    const deliveries = await until(() => received("tx"), (list) => list.length >= 2, 30_000);
    const events = deliveries.map((d) => JSON.parse(d.body));
    expect(events.map((e) => e.type).sort()).toEqual(["transaction.confirmed", "transaction.pending"]);
    const confirmed = events.find((e) => e.type === "transaction.confirmed");
    expect(confirmed.data.transaction).toMatchObject({ id: sent.body.id, status: "confirmed", value: "5", projectId: project.id });
    expect(confirmed.data.transaction.gasUsed).toMatch(/^[0-9]+$/);
    for (const delivery of deliveries) {
      expect(delivery.headers["mintyard-event"]).toBe(JSON.parse(delivery.body).type);
      expect(await verify(endpoint.body.secret, delivery.headers["mintyard-signature"]!, delivery.body)).toBe(true);
      expect(await verify(endpoint.body.secret, delivery.headers["mintyard-signature"]!, `${delivery.body} `)).toBe(false);
    }
  });

  it("retries a failing endpoint with backoff until it answers 2xx, and logs every attempt", async () => {
    await failNext("flaky", 2);
    const endpoint = await register("flaky", ["transaction.pending"]);
    const sent = await call("/v1/project-wallet/transfer", {
      secretKey: project.secretKey,
      body: { type: "native", recipientAddress: "0x000000000000000000000000000000000000dEaD", amount: "6" },
    });
    expect(sent.status).toBe(201);
    const attempts = await until(() => received("flaky"), (list) => list.some((d) => d.status === 200), 30_000);
    expect(attempts.map((d) => d.status)).toEqual([500, 500, 200]);
    // Backoff (WEBHOOK_RETRY_BASE_SECONDS = 1 here): the retries come at least 1 s, then 4 s, after
    // the attempt before, read from each attempt's signed timestamp (whole seconds).
    const sentAt = attempts.map((d) => Number(/t=(\d+)/.exec(d.headers["mintyard-signature"]!)![1]));
    expect([sentAt[1]! - sentAt[0]! >= 1, sentAt[2]! - sentAt[1]! >= 4], JSON.stringify(sentAt)).toEqual([true, true]);
    // The same event (same id) each time: receivers de-duplicate on it.
    expect(new Set(attempts.map((d) => JSON.parse(d.body).id)).size).toBe(1);
    const log = await until(
      () => call(`/v1/webhooks/${endpoint.body.id}/deliveries`, { secretKey: project.secretKey }),
      (result) => result.body.data[0]?.status === "delivered",
      30_000,
    );
    expect(log.body.data[0]).toMatchObject({ eventType: "transaction.pending", status: "delivered", attempts: 3, lastStatusCode: 200, nextAttemptAt: null });
  });

  it("tells the listing project when its order is filled", async () => {
    await register("orders", ["order.filled"]);
    const seller = await freshWallet();
    const deployed = await call("/v1/project-wallet/drops/deploy", {
      secretKey: project.secretKey,
      body: { name: "Hooked drop", metadataStorageType: "self-hosted", baseUri: "https://example.com/h/" },
    });
    const claimed = await call("/v1/project-wallet/drops/claim", {
      secretKey: project.secretKey,
      body: { contractAddress: deployed.body.drop.contractAddress, recipientAddress: seller.address },
    });
    await waitForTransaction(claimed.body.transactions[0].id, project.apiKey);
    const listing = await seaportJsList({ privateKey: seller.privateKey, token: deployed.body.drop.contractAddress, tokenId: "1", price: ETHER / 100n });
    const listed = await call("/v1/orders", { apiKey: project.apiKey, body: { signature: listing.signature, parameters: listing.parameters, chainId: 1868 } });
    const bought = await call("/v1/project-wallet/orders/buy", { secretKey: project.secretKey, body: { chainId: 1868, orderHashes: [listed.body.orderHash] } });
    await waitForTransaction(bought.body[0].result[0].result.id, project.apiKey);
    const [delivery] = await until(() => received("orders"), (list) => list.length >= 1, 30_000);
    const event = JSON.parse(delivery!.body);
    expect(event).toMatchObject({ type: "order.filled", data: { order: { orderHash: listed.body.orderHash, chainId: 1868 } } });
    expect(event.data.order.recipient.toLowerCase()).toBe(project.walletAddress.toLowerCase());
  });
});

describe("fills the indexer finds on chain", () => {
  it("are delivered without waiting for the cron", async () => {
    // A project of its own: no other event of it wakes its dispatcher meanwhile.
    const own = await createTestProject("Filled elsewhere");
    await register("outside-fill", ["order.filled"], own.secretKey);
    const seller = await freshWallet();
    const buyer = await freshWallet();
    const drop = await deployConfirmedDrop(own, { name: "Filled elsewhere", metadataStorageType: "self-hosted", baseUri: "https://example.com/f/" });
    const [tokenId] = await claimConfirmed(own, { contractAddress: drop.contractAddress, recipientAddress: seller.address });
    await setApprovalForAll(seller, drop.contractAddress, seaportAddress());
    const listing = await signListing({ seller: seller.account, token: drop.contractAddress, tokenId: BigInt(tokenId!), price: ETHER / 100n, fee: ETHER / 2000n, feeRecipient: uniqueAddress() });
    // The project's listing, as POST /v1/orders stores it; a third party fills it on Seaport.
    await seedListing({ chainId: 1868, contractAddress: drop.contractAddress.toLowerCase(), tokenId: tokenId! } as never, listing.price, {
      orderHash: listing.orderHash,
      offerer: seller.address,
      projectId: own.id,
    });
    const fill = await buyer.send({ to: seaportAddress(), data: basicFulfilment(listing), value: listing.price });
    expect(fill.status).toBe("success");
    await nextBlock();
    await runIndex();

    // No cron runs in the tests: only the indexer's own kick can wake the dispatcher.
    const [delivery] = await until(() => received("outside-fill"), (list) => list.length >= 1, 30_000);
    expect(JSON.parse(delivery!.body)).toMatchObject({ type: "order.filled", data: { order: { orderHash: listing.orderHash }, transactionHash: fill.transactionHash } });
  });
});

// deliverDue is what the project's WebhookDispatcher runs on each alarm; driving it directly (no
// dispatcher is kicked: the deliveries are queued straight into D1) fixes the order of events.
describe("the retry schedule", () => {
  it("waits the base delay, four times longer each time, at most 6 h", () => {
    const schedule = [1, 2, 3, 4, 5, 6, 7].map((attempts) => retryDelayMs({ WEBHOOK_RETRY_BASE_SECONDS: "30" }, attempts) / 1000);
    expect(schedule).toEqual([30, 120, 480, 1_920, 7_680, 21_600, 21_600]);
  });
  it("reads Retry-After as seconds or an HTTP date, and ignores what it cannot read", () => {
    const now = Date.parse("2026-11-22T12:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 12:05:00 GMT", now)).toBe(300_000);
    expect(parseRetryAfter("Sun, 22 Nov 2026 11:00:00 GMT", now)).toBe(0);
    // A shorter wait than the step does not hasten the retry; none outlasts the delivery's window.
    const base = { WEBHOOK_RETRY_BASE_SECONDS: "30" };
    expect(nextAttemptAt(base, 3, now - 60_000, now, 1_000)).toBe(now + 480_000);
    expect(nextAttemptAt(base, 1, now - DELIVERY_WINDOW_MS + 60_000, now, 600_000)).toBe(now + 60_000);
    expect([parseRetryAfter("soon", now), parseRetryAfter("-5", now), parseRetryAfter("1.5", now), parseRetryAfter("", now), parseRetryAfter(null, now)]).toEqual([null, null, null, null, null]);
  });
});

describe("deleting an endpoint stops its deliveries", () => {
  afterEach(() => vi.restoreAllMocks());

  const deliveryRows = (endpointId: string) =>
    env.DB.prepare("select status, last_error from webhook_deliveries where endpoint_id = ? order by created_at, id").bind(endpointId).all<{ status: string; last_error: string | null }>();

  it("a delivery in flight when the endpoint is deleted stays failed, and the rest of the batch is not sent", async () => {
    const own = await createTestProject("Deleted in flight");
    const endpoint = await register("in-flight", ["transaction.confirmed"], own.secretKey);
    expect(endpoint.status).toBe(201);
    for (const n of [1, 2]) {
      await enqueueWebhookStatement(env.DB, webhookPayload("transaction.confirmed", { n }), { sql: "?", params: [own.id] }).run();
    }
    await failNext("in-flight", 5);

    // The first delivery's request is out (and will be answered 500) when the project deletes it.
    interceptFetch(async ({ url }, pass) => {
      if (url.startsWith(hookUrl("in-flight"))) {
        const deleted = await call(`/v1/webhooks/${endpoint.body.id}`, { secretKey: own.secretKey, method: "DELETE" });
        expect([204, 404]).toContain(deleted.status);
      }
      return pass();
    });

    const next = await deliverDue(serviceContext(env), own.id);
    expect((await received("in-flight")).length).toBe(1);
    expect((await deliveryRows(endpoint.body.id)).results).toEqual([
      { status: "failed", last_error: "endpoint deleted" },
      { status: "failed", last_error: "endpoint deleted" },
    ]);
    expect(next, "nothing is left to retry").toBeNull();
  });

  it("never sends a pending delivery whose endpoint is deleted", async () => {
    const own = await createTestProject("Deleted endpoint");
    const endpoint = await register("deleted", ["transaction.confirmed"], own.secretKey);
    expect((await call(`/v1/webhooks/${endpoint.body.id}`, { secretKey: own.secretKey, method: "DELETE" })).status).toBe(204);
    // A pending row left behind for the deleted endpoint, as an in-flight attempt writing over the deletion would leave it.
    const payload = webhookPayload("transaction.confirmed", {});
    await env.DB.prepare(
      `insert into webhook_deliveries (id, endpoint_id, project_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at)
       values (?, ?, ?, ?, ?, ?, 'pending', 1, ?, ?)`,
    )
      .bind(crypto.randomUUID(), endpoint.body.id, own.id, payload.id, payload.type, JSON.stringify(payload), Date.now() - 1000, Date.now() - 2000)
      .run();

    expect(await deliverDue(serviceContext(env), own.id)).toBeNull();
    expect(await received("deleted")).toEqual([]);
  });
});

describe("one endpoint's trouble", () => {
  afterEach(() => vi.restoreAllMocks());

  const rowsOf = (endpointId: string) =>
    env.DB.prepare("select event_id, status, attempts, next_attempt_at, last_error from webhook_deliveries where endpoint_id = ? order by created_at, id")
      .bind(endpointId)
      .all<{ event_id: string; status: string; attempts: number; next_attempt_at: number; last_error: string | null }>();

  it("sends nothing to an endpoint whose stored URL the rules refuse, and fails its deliveries", async () => {
    const own = await createTestProject("Refused later");
    // Inserted directly: registration refuses 100.64.0.0/10 (CGNAT), a stored row may still hold it.
    const endpointId = crypto.randomUUID();
    await env.DB.prepare("insert into webhook_endpoints (id, project_id, url, events, created_at) values (?, ?, ?, ?, ?)")
      .bind(endpointId, own.id, "https://100.64.1.2/hook", JSON.stringify(["transaction.confirmed"]), Date.now())
      .run();
    await queuedDelivery(endpointId, own.id, 60_000);
    await queuedDelivery(endpointId, own.id, 30_000, -3_600_000); // not due yet: it would never be sent either
    const sent = recordFetches(({ url }) => url.includes("100.64.1.2"));

    const production = serviceContext({ ...env, ALLOW_LOOPBACK_WEBHOOKS: "false" });
    expect(await deliverDue(production, own.id)).toBeNull();
    expect(sent).toEqual([]);
    const rows = (await rowsOf(endpointId)).results;
    expect(rows.map((row) => [row.status, row.attempts])).toEqual([
      ["failed", 0],
      ["failed", 0],
    ]);
    expect(rows[0]!.last_error).toContain("endpoint URL refused: it must not point at");
  });

  it("keeps an earlier wake-up a kick set while an alarm ran", async () => {
    const own = await createTestProject("Kicked mid-alarm");
    const endpoint = await register("kicked-mid-alarm", ["transaction.confirmed"], own.secretKey);
    await queuedDelivery(endpoint.body.id, own.id, 1_000, -3_600_000); // the next retry is an hour away
    const wokenAt = await runInDurableObject(dispatcherStub(env, own.id), async (instance, state) => {
      await state.storage.put("projectId", own.id);
      const kickedFor = Date.now() + 60_000; // a fill the indexer found, queued while the alarm ran
      await state.storage.setAlarm(kickedFor);
      await instance.alarm();
      return [await state.storage.getAlarm(), kickedFor];
    });
    expect(wokenAt[0]).toBe(wokenAt[1]);
  });

  it("an endpoint that does not answer holds up none of the project's others, and its other events wait with it", async () => {
    const own = await createTestProject("One endpoint down");
    const down = (await register("down", ["transaction.confirmed"], own.secretKey)).body;
    const up = (await register("up", ["transaction.confirmed"], own.secretKey)).body;
    const probe = await queuedDelivery(down.id, own.id, 60_000, 3_000);
    const waiting = await queuedDelivery(down.id, own.id, 30_000, 2_000);
    const tooOld = await queuedDelivery(down.id, own.id, 25 * 60 * 60 * 1000, 1_000);
    const forUp = [await queuedDelivery(up.id, own.id, 60_000), await queuedDelivery(up.id, own.id, 30_000)];

    // `down` never answers: its request hangs until `up` has had a delivery, or until the
    // attempt's own timeout when nothing is sent to `up` meanwhile.
    let upDelivered: () => void = () => {};
    const upAnswered = new Promise<void>((resolve) => (upDelivered = resolve));
    let downTimedOut = 0;
    interceptFetch(async ({ url, init }, pass) => {
      if (url.startsWith(hookUrl("down"))) {
        const ended = await Promise.race([upAnswered.then(() => "up delivered"), new Promise((resolve) => init?.signal?.addEventListener("abort", () => resolve("timeout")))]);
        if (ended === "timeout") downTimedOut++;
        throw new TypeError("Network connection lost.");
      }
      const response = await pass();
      if (url.startsWith(hookUrl("up"))) upDelivered();
      return response;
    });

    const startedAt = Date.now();
    await deliverDue(serviceContext(env), own.id);
    expect(downTimedOut, "no request to down waited out its timeout for up to be served").toBe(0);
    expect((await received("up")).map((d) => JSON.parse(d.body).id).sort()).toEqual([...forUp].sort());

    const rows = Object.fromEntries((await rowsOf(down.id)).results.map((row) => [row.event_id, row]));
    // One attempt only: the other due event waits as long as the one tried, without an attempt of its own.
    expect(rows[probe]).toMatchObject({ status: "pending", attempts: 1, last_error: "TypeError" });
    expect(rows[waiting]).toMatchObject({ status: "pending", attempts: 0, next_attempt_at: rows[probe]!.next_attempt_at - 1 });
    expect(rows[probe]!.next_attempt_at).toBeGreaterThanOrEqual(startedAt + retryDelayMs(env, 1));
    expect(rows[tooOld]).toMatchObject({ status: "failed", attempts: 0, last_error: "endpoint unavailable until the window ended" });
  });

  it("an event the endpoint always refuses does not keep the events deferred with it from their attempts", async () => {
    const own = await createTestProject("One event refused");
    const picky = (await register("picky", ["transaction.confirmed"], own.secretKey)).body;
    const refused = await queuedDelivery(picky.id, own.id, 60_000, 2_000);
    const fine = await queuedDelivery(picky.id, own.id, 30_000, 1_000);
    interceptFetch(async ({ url, body }, pass) =>
      url.startsWith(hookUrl("picky")) && body && JSON.parse(body).id === refused ? new Response("no", { status: 500 }) : pass(),
    );
    const makeDue = () => env.DB.prepare("update webhook_deliveries set next_attempt_at = next_attempt_at - 3600000 where endpoint_id = ? and status = 'pending'").bind(picky.id).run();

    await deliverDue(serviceContext(env), own.id); // the refused event fails; the other waits with it
    await makeDue();
    await deliverDue(serviceContext(env), own.id); // the waiting one goes first this time
    expect((await received("picky")).map((d) => JSON.parse(d.body).id)).toEqual([fine]);
    const rows = Object.fromEntries((await rowsOf(picky.id)).results.map((row) => [row.event_id, row.status]));
    expect(rows).toEqual({ [refused]: "pending", [fine]: "delivered" });
  });

  it("holds the endpoint's other events only until the failing delivery's own next try", async () => {
    const own = await createTestProject("Short hold");
    const endpoint = (await register("short-hold", ["transaction.confirmed"], own.secretKey)).body;
    const hour = 60 * 60 * 1000;
    // Ten minutes left of its window, eight attempts made: its next try is the window's end, not 6 h away.
    const old = await queuedDelivery(endpoint.id, own.id, 24 * hour - 10 * 60_000, 2_000);
    const fresh = await queuedDelivery(endpoint.id, own.id, 1_000, 1_000);
    await env.DB.prepare("update webhook_deliveries set attempts = 8 where event_id = ?").bind(old).run();
    interceptFetch(async ({ url }, pass) => (url.startsWith(hookUrl("short-hold")) ? new Response("busy", { status: 503 }) : pass()));

    await deliverDue(serviceContext(env), own.id);
    const rows = Object.fromEntries((await rowsOf(endpoint.id)).results.map((row) => [row.event_id, row]));
    expect(rows[old]).toMatchObject({ status: "pending", attempts: 9 });
    expect(rows[old]!.next_attempt_at).toBeLessThan(Date.now() + 11 * 60_000);
    // The fresh event goes just before it, not six hours later.
    expect(rows[fresh]).toMatchObject({ status: "pending", attempts: 0, next_attempt_at: rows[old]!.next_attempt_at - 1 });
  });

  it("waits as long as an endpoint's Retry-After asks, at most 6 h, and holds its other events as long", async () => {
    const own = await createTestProject("Retry-After");
    const hour = 60 * 60 * 1000;
    const [inSeconds, asDate, tooLong] = await Promise.all(
      ["retry-after-seconds", "retry-after-date", "retry-after-days"].map(async (name) => (await register(name, ["transaction.confirmed"], own.secretKey)).body),
    );
    const tried = { seconds: await queuedDelivery(inSeconds.id, own.id, 60_000, 2_000), date: await queuedDelivery(asDate.id, own.id, 1_000), long: await queuedDelivery(tooLong.id, own.id, 1_000) };
    const heldBack = await queuedDelivery(inSeconds.id, own.id, 30_000, 1_000);
    const startedAt = Date.now();
    const answers: Record<string, Response> = {
      [hookUrl("retry-after-seconds")]: new Response("slow down", { status: 429, headers: { "retry-after": "600" } }),
      [hookUrl("retry-after-date")]: new Response("maintenance", { status: 503, headers: { "retry-after": new Date(startedAt + 20 * 60_000).toUTCString() } }),
      [hookUrl("retry-after-days")]: new Response("slow down", { status: 429, headers: { "retry-after": String(3 * 24 * 3600) } }),
    };
    interceptFetch(async ({ url }, pass) => Object.entries(answers).find(([hook]) => url.startsWith(hook))?.[1] ?? pass());

    await deliverDue(serviceContext(env), own.id);
    const rows = Object.fromEntries(
      (await Promise.all([inSeconds, asDate, tooLong].map(async (endpoint) => (await rowsOf(endpoint.id)).results))).flat().map((row) => [row.event_id, row]),
    );
    expect(rows[tried.seconds]).toMatchObject({ status: "pending", attempts: 1, last_error: "HTTP 429" });
    expect(rows[tried.seconds]!.next_attempt_at).toBeGreaterThanOrEqual(startedAt + 600_000);
    expect(rows[tried.seconds]!.next_attempt_at).toBeLessThanOrEqual(Date.now() + 600_000);
    expect(rows[heldBack]).toMatchObject({ attempts: 0, next_attempt_at: rows[tried.seconds]!.next_attempt_at - 1 });
    // An HTTP date has whole seconds.
    expect(rows[tried.date]!.next_attempt_at).toBeGreaterThanOrEqual(startedAt + 20 * 60_000 - 1_000);
    expect(rows[tried.date]!.next_attempt_at).toBeLessThanOrEqual(startedAt + 20 * 60_000);
    expect(rows[tried.long]!.next_attempt_at).toBeGreaterThanOrEqual(startedAt + 6 * hour);
    expect(rows[tried.long]!.next_attempt_at).toBeLessThanOrEqual(Date.now() + 6 * hour);
  });

  it("counts a 2xx whose body could not be discarded as delivered", async () => {
    const own = await createTestProject("Body reset");
    const endpoint = (await register("body-reset", ["transaction.confirmed"], own.secretKey)).body;
    const event = await queuedDelivery(endpoint.id, own.id, 1_000);
    const resetMidBody = () => new ReadableStream({ cancel: () => Promise.reject(new Error("connection reset")) });
    interceptFetch(async ({ url }, pass) => (url.startsWith(hookUrl("body-reset")) ? new Response(resetMidBody(), { status: 200 }) : pass()));

    await deliverDue(serviceContext(env), own.id);
    expect((await rowsOf(endpoint.id)).results).toEqual([expect.objectContaining({ event_id: event, status: "delivered", attempts: 1, last_error: null })]);
  });

  it("a backlog of one endpoint does not use up another's turn", async () => {
    const own = await createTestProject("One endpoint behind");
    const behind = (await register("behind", ["transaction.confirmed"], own.secretKey)).body;
    const current = (await register("current", ["transaction.confirmed"], own.secretKey)).body;
    for (let i = 0; i < 30; i++) await queuedDelivery(behind.id, own.id, 120_000 - i, 60_000 - i);
    const latest = await queuedDelivery(current.id, own.id, 1_000, 500);

    await deliverDue(serviceContext(env), own.id);
    expect((await received("current")).map((d) => JSON.parse(d.body).id)).toEqual([latest]);
    expect((await received("behind")).length).toBe(ROWS_PER_ENDPOINT);
  });

  it("tries a failing delivery once more when its 24 h end, then fails it", async () => {
    const own = await createTestProject("Window edge");
    const edge = (await register("edge", ["transaction.confirmed"], own.secretKey)).body;
    await failNext("edge", 2);
    const hour = 60 * 60 * 1000;
    const event = await queuedDelivery(edge.id, own.id, 23 * hour);
    const createdAt = Date.now() - 23 * hour;
    // Eight attempts made: the next retry is 6 h away (the cap), past the window's end.
    await env.DB.prepare("update webhook_deliveries set attempts = 8 where event_id = ?").bind(event).run();

    await deliverDue(serviceContext(env), own.id);
    const [afterFirst] = (await rowsOf(edge.id)).results;
    // The retry moves to the window's end instead of being dropped.
    expect(afterFirst).toMatchObject({ event_id: event, status: "pending", attempts: 9 });
    expect(Math.abs(afterFirst!.next_attempt_at - (createdAt + 24 * hour))).toBeLessThan(hour / 2);

    await env.DB.prepare("update webhook_deliveries set created_at = ?, next_attempt_at = ? where endpoint_id = ?").bind(Date.now() - 24 * hour, Date.now(), edge.id).run();
    await deliverDue(serviceContext(env), own.id);
    expect((await rowsOf(edge.id)).results[0]).toMatchObject({ status: "failed", attempts: 10, last_error: "HTTP 500" });
  });
});

describe("the delivery log", () => {
  it("keeps finished deliveries 30 days after their last attempt, pending ones until they finish", async () => {
    const own = await createTestProject("Old deliveries");
    const endpoint = (await register("old-log", ["transaction.confirmed"], own.secretKey)).body;
    const day = 24 * 60 * 60 * 1000;
    const rows = [
      ["delivered-31", "delivered", 31],
      ["failed-31", "failed", 31],
      ["delivered-29", "delivered", 29],
      ["pending-31", "pending", 31],
    ] as const;
    for (const [id, status, days] of rows) {
      await env.DB.prepare(
        `insert into webhook_deliveries (id, endpoint_id, project_id, event_id, event_type, payload, status, attempts, next_attempt_at, created_at)
         values (?, ?, ?, ?, 'transaction.confirmed', '{}', ?, 1, ?, ?)`,
      )
        .bind(`${endpoint.id}-${id}`, endpoint.id, own.id, id, status, Date.now() - days * day, Date.now() - days * day)
        .run();
    }
    await runIndex();

    const left = await env.DB.prepare("select event_id from webhook_deliveries where endpoint_id = ? order by event_id").bind(endpoint.id).all<{ event_id: string }>();
    expect(left.results.map((row) => row.event_id)).toEqual(["delivered-29", "pending-31"]);
  });
});
