// Tenant isolation matrix (issue 6): project A's keys against project B's drops, transactions,
// orders and wallet, and every key-protected endpoint with the wrong key kind. Each case asserts
// the status and code, and at the end nothing of B's has changed. The matrix must name every
// operation of /openapi.json, so a new endpoint fails here until its tenancy is decided.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { chainClient, fund, waitForTransaction } from "../helpers/chain";
import { call, expectEnvelope, type CallOptions } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";
import { seaportJsList } from "../helpers/seaport";
import { freshWallet } from "../helpers/wallets";
import { queuedDelivery } from "../helpers/webhooks";

let a: TestProject;
let b: TestProject;
let bDrop: { id: string; contractAddress: string };
let bTransactionId: string;
let bOrderHash: string;
let bWebhookId: string;
let bDeliveryId: string;
const someone = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";

interface Case {
  operation: string;
  path: () => string;
  options: () => CallOptions;
  status: number;
  code?: string;
  /** Extra check on a 2xx answer (it must show only A's own things). */
  check?: (body: any) => void;
}

const withA = (body?: unknown): CallOptions => ({ secretKey: a.secretKey, ...(body === undefined ? {} : { body }) });
const apiA = (body?: unknown): CallOptions => ({ apiKey: a.apiKey, ...(body === undefined ? {} : { body }) });

/** A's keys against B's things. */
const crossTenant: Case[] = [
  { operation: "GET /v1/drops/{id}", path: () => `/v1/drops/${bDrop.id}`, options: () => apiA(), status: 404, code: "not_found" },
  {
    operation: "GET /v1/drops/{id}/allowlist/{address}",
    path: () => `/v1/drops/${bDrop.id}/allowlist/${someone}`,
    options: () => apiA(),
    status: 404,
    code: "not_found",
  },
  { operation: "GET /v1/transactions/{id}", path: () => `/v1/transactions/${bTransactionId}`, options: () => apiA(), status: 404, code: "not_found" },
  {
    operation: "POST /v1/transactions/{id}/cancel",
    path: () => `/v1/transactions/${bTransactionId}/cancel`,
    options: () => ({ method: "POST", secretKey: a.secretKey }),
    status: 404,
    code: "not_found",
  },
  {
    operation: "GET /v1/transactions",
    path: () => "/v1/transactions?limit=100",
    options: () => apiA(),
    status: 200,
    check: (body) => expect(body.data.every((tx: { projectId: string }) => tx.projectId === a.id)).toBe(true),
  },
  {
    operation: "GET /v1/drops",
    path: () => `/v1/drops?filter.projectId=${b.id}`,
    options: () => apiA(),
    status: 200,
    check: (body) => expect(body.data.map((d: { blindboxKey: string | null }) => d.blindboxKey)).toEqual([null]),
  },
  {
    operation: "GET /v1/project-wallet",
    path: () => "/v1/project-wallet",
    options: () => withA(),
    status: 200,
    check: (body) => expect(body.address).toBe(a.walletAddress),
  },
  {
    operation: "POST /v1/project-wallet/drops/claim",
    path: () => "/v1/project-wallet/drops/claim",
    options: () => withA({ contractAddress: bDrop.contractAddress, recipientAddress: someone }),
    status: 404,
    code: "not_found",
  },
  {
    operation: "POST /v1/project-wallet/drops/claim (projectId of B)",
    path: () => "/v1/project-wallet/drops/claim",
    options: () => withA({ projectId: b.id, contractAddress: bDrop.contractAddress, recipientAddress: someone }),
    status: 403,
    code: "forbidden",
  },
  {
    operation: "POST /v1/project-wallet/mint",
    path: () => "/v1/project-wallet/mint",
    options: () => withA({ contractAddress: bDrop.contractAddress, recipientAddress: someone }),
    status: 404,
    code: "not_found",
  },
  {
    operation: "POST /v1/project-wallet/drops/deploy",
    path: () => "/v1/project-wallet/drops/deploy",
    options: () => withA({ projectId: b.id, name: "Not mine", metadataStorageType: "self-hosted", baseUri: "https://e.com/" }),
    status: 403,
    code: "forbidden",
  },
  { operation: "DELETE /v1/webhooks/{id}", path: () => `/v1/webhooks/${bWebhookId}`, options: () => ({ method: "DELETE", secretKey: a.secretKey }), status: 404, code: "not_found" },
  { operation: "GET /v1/webhooks/{id}/deliveries", path: () => `/v1/webhooks/${bWebhookId}/deliveries`, options: () => withA(), status: 404, code: "not_found" },
  {
    operation: "POST /v1/webhooks/{id}/deliveries/{deliveryId}/resend",
    path: () => `/v1/webhooks/${bWebhookId}/deliveries/${bDeliveryId}/resend`,
    options: () => ({ method: "POST", secretKey: a.secretKey }),
    status: 404,
    code: "not_found",
  },
  {
    operation: "POST /v1/webhooks/{id}/recover",
    path: () => `/v1/webhooks/${bWebhookId}/recover`,
    options: () => ({ secretKey: a.secretKey, body: { since: "2020-01-01T00:00:00Z" } }),
    status: 404,
    code: "not_found",
  },
  {
    operation: "POST /v1/webhooks/{id}/rotate-secret",
    path: () => `/v1/webhooks/${bWebhookId}/rotate-secret`,
    options: () => ({ method: "POST", secretKey: a.secretKey }),
    status: 404,
    code: "not_found",
  },
  {
    operation: "POST /v1/webhooks/{id}/enable",
    path: () => `/v1/webhooks/${bWebhookId}/enable`,
    options: () => ({ method: "POST", secretKey: a.secretKey }),
    status: 404,
    code: "not_found",
  },
  {
    operation: "GET /v1/webhooks",
    path: () => "/v1/webhooks",
    options: () => withA(),
    status: 200,
    check: (body) => expect(body.data.map((e: { id: string }) => e.id)).not.toContain(bWebhookId),
  },
  {
    operation: "GET /v1/orders/{orderHash}",
    path: () => `/v1/orders/${bOrderHash}`,
    options: () => apiA(),
    status: 200,
    // Orders are marketplace data (DESIGN §3): readable by anyone with a key.
    check: (body) => expect(body.orderHash).toBe(bOrderHash),
  },
  {
    operation: "GET /v1/orders",
    path: () => `/v1/orders?contractAddress=${bDrop.contractAddress}`,
    options: () => apiA(),
    status: 200,
    check: (body) => expect(body.data.map((order: { orderHash: string }) => order.orderHash)).toEqual([bOrderHash]),
  },
];

/** The wrong kind of credentials for each remaining key-protected operation. */
const wrongKind: Case[] = [
  { operation: "POST /v1/project-wallet/transfer", path: () => "/v1/project-wallet/transfer", options: () => apiA({ type: "native", recipientAddress: someone, amount: "1" }), status: 403, code: "forbidden" },
  { operation: "POST /v1/project-wallet/orders/buy", path: () => "/v1/project-wallet/orders/buy", options: () => apiA({ chainId: 1868, orderHashes: [bOrderHash] }), status: 403, code: "forbidden" },
  { operation: "POST /v1/webhooks", path: () => "/v1/webhooks", options: () => apiA({ url: "https://example.com/a", events: ["order.filled"] }), status: 403, code: "forbidden" },
  {
    operation: "POST /v1/transactions/{id}/cancel (B's publishable key)",
    path: () => `/v1/transactions/${bTransactionId}/cancel`,
    options: () => ({ method: "POST", apiKey: b.apiKey }),
    status: 403,
    code: "forbidden",
  },
  {
    operation: "POST /v1/webhooks/{id}/deliveries/{deliveryId}/resend (B's publishable key)",
    path: () => `/v1/webhooks/${bWebhookId}/deliveries/${bDeliveryId}/resend`,
    options: () => ({ method: "POST", apiKey: b.apiKey }),
    status: 403,
    code: "forbidden",
  },
  {
    operation: "POST /v1/webhooks/{id}/recover (B's publishable key)",
    path: () => `/v1/webhooks/${bWebhookId}/recover`,
    options: () => ({ apiKey: b.apiKey, body: { since: "2020-01-01T00:00:00Z" } }),
    status: 403,
    code: "forbidden",
  },
  {
    operation: "POST /v1/webhooks/{id}/enable (B's publishable key)",
    path: () => `/v1/webhooks/${bWebhookId}/enable`,
    options: () => ({ method: "POST", apiKey: b.apiKey }),
    status: 403,
    code: "forbidden",
  },
  {
    operation: "POST /v1/webhooks/{id}/rotate-secret (B's publishable key)",
    path: () => `/v1/webhooks/${bWebhookId}/rotate-secret`,
    options: () => ({ method: "POST", apiKey: b.apiKey }),
    status: 403,
    code: "forbidden",
  },
  { operation: "POST /v1/orders", path: () => "/v1/orders", options: () => ({ body: { signature: "0x", orderHash: bOrderHash } }), status: 401, code: "unauthorized" },
  { operation: "POST /v1/orders/listings", path: () => "/v1/orders/listings", options: () => ({ body: {} }), status: 401, code: "unauthorized" },
  { operation: "GET /v1/assets/explore", path: () => "/v1/assets/explore", options: () => ({}), status: 401, code: "unauthorized" },
  { operation: "GET /v1/assets/{chainId}/{contractAddress}/{tokenId}", path: () => `/v1/assets/1868/${bDrop.contractAddress}/1`, options: () => ({}), status: 401, code: "unauthorized" },
  { operation: "GET /v1/collections/trending", path: () => "/v1/collections/trending", options: () => ({}), status: 401, code: "unauthorized" },
  ...["POST /v1/admin/projects", "GET /v1/admin/projects", "POST /v1/admin/collections", "POST /v1/admin/index"].map(
    (operation): Case => {
      const [method, path] = operation.split(" ") as [string, string];
      return { operation, path: () => path, options: () => ({ method, secretKey: a.secretKey, ...(method === "POST" ? { body: {} } : {}) }), status: 401, code: "unauthorized" };
    },
  ),
  { operation: "POST /v1/admin/projects/{id}/keys", path: () => `/v1/admin/projects/${b.id}/keys`, options: () => withA({ kind: "secret" }), status: 401, code: "unauthorized" },
  { operation: "GET /v1/admin/projects/{id}/keys", path: () => `/v1/admin/projects/${b.id}/keys`, options: () => ({ secretKey: a.secretKey }), status: 401, code: "unauthorized" },
  { operation: "DELETE /v1/admin/keys/{keyId}", path: () => `/v1/admin/keys/${b.secretKeyId}`, options: () => ({ method: "DELETE", secretKey: a.secretKey }), status: 401, code: "unauthorized" },
];

/** Endpoints without credentials by design. */
const PUBLIC_OPERATIONS = ["GET /health", "GET /v1/metadata/{chainId}/{contractAddress}/{tokenId}"];

async function snapshotOfB() {
  const [drops, transactions, keys, webhooks, deliveries] = await env.DB.batch([
    env.DB.prepare("select * from drops where project_id = ? order by id").bind(b.id),
    env.DB.prepare("select id, status, transaction_hash from transactions where project_id = ? order by id").bind(b.id),
    env.DB.prepare("select id, revoked_at from api_keys where project_id = ? order by id").bind(b.id),
    env.DB.prepare("select id, deleted_at, secret_version, previous_secret_until from webhook_endpoints where project_id = ? order by id").bind(b.id),
    env.DB.prepare("select id, status, attempts, next_attempt_at from webhook_deliveries where project_id = ? order by id").bind(b.id),
  ]);
  const nonce = await chainClient().getTransactionCount({ address: b.walletAddress as Address, blockTag: "pending" });
  return JSON.stringify({ drops: drops!.results, transactions: transactions!.results, keys: keys!.results, webhooks: webhooks!.results, deliveries: deliveries!.results, nonce });
}

beforeAll(async () => {
  [a, b] = await Promise.all([createTestProject("Tenant A"), createTestProject("Tenant B")]);
  await Promise.all([fund(a.walletAddress), fund(b.walletAddress)]);
  const seller = await freshWallet();
  const deployed = await call("/v1/project-wallet/drops/deploy", {
    secretKey: b.secretKey,
    body: { name: "B's drop", metadataStorageType: "self-hosted", baseUri: "https://example.com/b/", whitelist: `${someone},2,0` },
  });
  bDrop = deployed.body.drop;
  bTransactionId = deployed.body.transactions[0].id;
  await waitForTransaction(bTransactionId, b.apiKey);
  const claimed = await call("/v1/project-wallet/drops/claim", { secretKey: b.secretKey, body: { contractAddress: bDrop.contractAddress, recipientAddress: seller.address } });
  await waitForTransaction(claimed.body.transactions[0].id, b.apiKey);
  const listing = await seaportJsList({ privateKey: seller.privateKey, token: bDrop.contractAddress, tokenId: "1", price: 1000n });
  const listed = await call("/v1/orders", { apiKey: b.apiKey, body: { signature: listing.signature, parameters: listing.parameters, chainId: 1868 } });
  expect(listed.status, JSON.stringify(listed.body)).toBe(201);
  bOrderHash = listed.body.orderHash;
  const hook = await call("/v1/webhooks", { secretKey: b.secretKey, body: { url: "https://example.com/b-hooks", events: ["order.filled"] } });
  bWebhookId = hook.body.id;
  await queuedDelivery(bWebhookId, b.id, 60_000);
  await env.DB.prepare("update webhook_deliveries set status = 'failed', attempts = 10 where endpoint_id = ?").bind(bWebhookId).run();
  bDeliveryId = (await env.DB.prepare("select id from webhook_deliveries where endpoint_id = ?").bind(bWebhookId).first<{ id: string }>())!.id;
});

describe("tenant isolation", () => {
  it("covers every operation of the OpenAPI document", async () => {
    const { body } = await call("/openapi.json");
    const documented = Object.entries(body.paths as Record<string, Record<string, unknown>>).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    const covered = new Set([...crossTenant, ...wrongKind].map((c) => c.operation.replace(/ \(.*\)$/, "")).concat(PUBLIC_OPERATIONS));
    expect(documented.filter((operation) => !covered.has(operation))).toEqual([]);
  });

  it("keeps every project to its own drops, transactions and wallet, and nothing of B's changes", async () => {
    const before = await snapshotOfB();
    for (const testCase of [...crossTenant, ...wrongKind]) {
      const result = await call(testCase.path(), testCase.options());
      if (testCase.code) expectEnvelope(result, testCase.status, testCase.code);
      else expect(result.status, `${testCase.operation}: ${JSON.stringify(result.body)}`).toBe(testCase.status);
      testCase.check?.(result.body);
    }
    expect(await snapshotOfB()).toBe(before);
  });
});
