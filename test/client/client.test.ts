// The whole happy path through the typed client (@mintyard/client) against the Worker: admin
// creates a project and keys, the wallet is funded, a drop is deployed and claimed, the
// transactions are followed to confirmation, the asset and the drop list are read. Every
// response is typed by the generated client AND parsed with its route's zod schema, so a
// response that does not match the documented shape fails here at run time, and a document
// that does not match the zod schemas fails tsc (the type checks at the bottom).
import type { RouteConfig, z } from "@hono/zod-openapi";
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createMintyardClient, type components, type MintyardClient, type operations } from "../../client/src/index";
import { createKey, createProject, listKeys } from "../../src/routes/admin/admin.routes";
import { getAsset } from "../../src/routes/assets/assets.routes";
import { listDrops } from "../../src/routes/drops/drops.routes";
import { claim, deployDrop, getProjectWallet } from "../../src/routes/project-wallet/project-wallet.routes";
import { getTransaction } from "../../src/routes/transactions/transactions.routes";
import { ErrorEnvelopeSchema } from "../../src/schemas/common";
import type { AssetSchema, DropSchema, TransactionSchema } from "../../src/schemas/resources";
import { TEST_ADMIN_TOKEN } from "../fixtures/secrets";
import { fund } from "../helpers/chain";
import { BASE } from "../helpers/http";
import { registerSecret, scanForSecrets } from "../helpers/secret-scan";
import { responseMedia } from "./route-configs";

/** Through the Worker's fetch handler; every response is also checked for leaked secrets. */
async function workerFetch(input: Request, init?: RequestInit): Promise<Response> {
  const response = await SELF.fetch(input, init);
  const text = await response.clone().text();
  scanForSecrets(`client ${input.method} ${new URL(input.url).pathname} → ${response.status}`, `${[...response.headers].join("\n")}\n${text}`);
  return response;
}

interface ClientResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * Asserts the status, then parses the body with the zod schema the route declares for it and
 * requires the parse to change nothing (zod strips undeclared fields, so an undocumented field
 * fails too). Returns the client's typed data.
 */
function expectDocumented<T>(route: RouteConfig, result: ClientResult<T>, status: number): NonNullable<T> {
  expect(result.response.status, JSON.stringify(result.error ?? result.data)).toBe(status);
  const media = responseMedia(route, status);
  if (!media) throw new Error(`${route.method.toUpperCase()} ${route.path} documents no JSON body for ${status}`);
  const parsed = media.schema.parse(result.data);
  expect(parsed).toEqual(result.data);
  return result.data as NonNullable<T>;
}

async function waitForConfirmation(client: MintyardClient, id: string, timeoutMs = 45_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const transaction = expectDocumented(getTransaction, await client.GET("/v1/transactions/{id}", { params: { path: { id } } }), 200);
    if (transaction.status !== "pending") return transaction;
    if (Date.now() > deadline) throw new Error(`transaction ${id} still pending after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const recipient = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
let admin: MintyardClient;
let project: components["schemas"]["Project"];
let apiClient: MintyardClient;
let secretClient: MintyardClient;

beforeAll(async () => {
  admin = createMintyardClient({ baseUrl: BASE, adminToken: TEST_ADMIN_TOKEN, fetch: (input, init) => workerFetch(input, init) });
  project = expectDocumented(createProject, await admin.POST("/v1/admin/projects", { body: { name: "Typed client" } }), 201);
  const api = expectDocumented(createKey, await admin.POST("/v1/admin/projects/{id}/keys", { params: { path: { id: project.id } }, body: { kind: "api" } }), 201);
  const secret = expectDocumented(createKey, await admin.POST("/v1/admin/projects/{id}/keys", { params: { path: { id: project.id } }, body: { kind: "secret" } }), 201);
  registerSecret(api.key, "plain API key");
  registerSecret(secret.key, "plain secret key");
  expect([api.kind, secret.kind]).toEqual(["api", "secret"]);
  // Both keys: the client sends the API key where it is enough and the secret key where it is needed.
  secretClient = createMintyardClient({ baseUrl: BASE, apiKey: api.key, secretKey: secret.key, fetch: (input, init) => workerFetch(input, init) });
  apiClient = createMintyardClient({ baseUrl: `${BASE}/`, apiKey: api.key, fetch: (input, init) => workerFetch(input, init) });
  const keys = expectDocumented(listKeys, await admin.GET("/v1/admin/projects/{id}/keys", { params: { path: { id: project.id } } }), 200);
  expect(keys.data.map((key) => key.id).sort()).toEqual([api.id, secret.id].sort());
});

describe("typed client against the Worker", () => {
  it("deploys, claims, follows the transactions and reads the results", async () => {
    const wallet = expectDocumented(getProjectWallet, await secretClient.GET("/v1/project-wallet"), 200);
    expect(wallet.address).toBe(project.walletAddress);
    await fund(wallet.address);

    const deployed = expectDocumented(
      deployDrop,
      await secretClient.POST("/v1/project-wallet/drops/deploy", {
        params: { header: { "idempotency-key": `client-deploy-${project.id}` } },
        body: {
          name: "Typed Pass",
          metadataStorageType: "metadata-api",
          defaultTokenMetadata: { name: "Typed Pass", image: "https://example.com/typed.png" },
          totalSupply: 10,
          creatorFeeBps: 250,
        },
      }),
      201,
    );
    const drop: components["schemas"]["Drop"] = deployed.drop;
    expect(drop).toMatchObject({ name: "Typed Pass", symbol: "TP", chainId: 1868, projectId: project.id, creatorFeeBps: 250 });

    const claimed = expectDocumented(
      claim,
      await secretClient.POST("/v1/project-wallet/drops/claim", {
        body: { contractAddress: drop.contractAddress, recipientAddress: recipient, quantity: 2, overrideMetadata: [{ name: "Typed #1" }, { name: "Typed #2" }] },
      }),
      201,
    );
    expect(claimed.assets.map((asset) => asset.tokenId)).toEqual(["1", "2"]);

    // Reads go out with the API key alone.
    const deployTx = await waitForConfirmation(apiClient, deployed.transactions[0]!.id);
    expect(deployTx.status).toBe("confirmed");
    expect(deployTx.gasUsed).not.toBeNull();
    const claimTx = await waitForConfirmation(apiClient, claimed.transactions[0]!.id);
    expect(claimTx).toMatchObject({ status: "confirmed", projectId: project.id, to: drop.contractAddress });

    const asset = expectDocumented(
      getAsset,
      await apiClient.GET("/v1/assets/{chainId}/{contractAddress}/{tokenId}", { params: { path: { chainId: 1868, contractAddress: drop.contractAddress, tokenId: "2" } } }),
      200,
    );
    expect(asset).toMatchObject({ tokenId: "2", name: "Typed #2", tokenUri: `${drop.baseUri}2`, schema: "ERC721" });
    expect(asset.collection?.slug).toBe(`soneium:${drop.contractAddress.toLowerCase()}`);

    const page = expectDocumented(listDrops, await apiClient.GET("/v1/drops", { params: { query: { "filter.projectId": project.id } } }), 200);
    expect(page.data.map((item) => item.id)).toEqual([drop.id]);
    expect(page.meta).toMatchObject({ totalItems: 1, currentPage: 1, filter: { projectId: `$eq:${project.id}` } });
    expect(page.data[0]!.blindboxKey).toBe(drop.blindboxKey);
  });

  it("types and documents the errors too", async () => {
    const missing = await apiClient.GET("/v1/drops/{id}", { params: { path: { id: crypto.randomUUID() } } });
    expect(missing.response.status).toBe(404);
    expect(ErrorEnvelopeSchema.parse(missing.error).error.code).toBe("not_found");
    // The API key alone cannot deploy: the client still sends it, and the service says why.
    const refused = await apiClient.POST("/v1/project-wallet/drops/deploy", { body: { name: "Nope", metadataStorageType: "self-hosted", baseUri: "https://e.com/" } });
    expect(refused.response.status).toBe(403);
    expect(refused.error?.error.code).toBe("forbidden");
    // No admin token: admin routes get no credential at all.
    const anonymous = await apiClient.GET("/v1/admin/projects");
    expect(anonymous.response.status).toBe(401);
    expect(anonymous.error?.error.code).toBe("unauthorized");
  });
});

// Compile-time: the generated client types and the zod schemas describe the same values.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type JsonOf<O extends keyof operations, S extends keyof operations[O]["responses"]> = operations[O]["responses"][S] extends {
  content: { "application/json": infer T };
}
  ? T
  : never;
type ZodJsonOf<R extends RouteConfig, S extends keyof R["responses"]> = R["responses"][S] extends { content: { "application/json": { schema: infer Z extends z.ZodType } } }
  ? z.output<Z>
  : never;
export const typesAgree: Record<string, true> = {
  drop: true satisfies Same<components["schemas"]["Drop"], z.output<typeof DropSchema>>,
  asset: true satisfies Same<components["schemas"]["Asset"], z.output<typeof AssetSchema>>,
  transaction: true satisfies Same<components["schemas"]["Transaction"], z.output<typeof TransactionSchema>>,
  project: true satisfies Same<JsonOf<"createProject", 201>, ZodJsonOf<typeof createProject, 201>>,
  key: true satisfies Same<JsonOf<"createKey", 201>, ZodJsonOf<typeof createKey, 201>>,
  deploy: true satisfies Same<JsonOf<"deployDrop", 201>, ZodJsonOf<typeof deployDrop, 201>>,
  claim: true satisfies Same<JsonOf<"claimDrop", 201>, ZodJsonOf<typeof claim, 201>>,
  wallet: true satisfies Same<JsonOf<"getProjectWallet", 200>, ZodJsonOf<typeof getProjectWallet, 200>>,
  dropPage: true satisfies Same<JsonOf<"listDrops", 200>, ZodJsonOf<typeof listDrops, 200>>,
  assetRead: true satisfies Same<JsonOf<"getAsset", 200>, ZodJsonOf<typeof getAsset, 200>>,
  transactionRead: true satisfies Same<JsonOf<"getTransaction", 200>, ZodJsonOf<typeof getTransaction, 200>>,
  error: true satisfies Same<JsonOf<"getDrop", 404>, z.output<typeof ErrorEnvelopeSchema>>,
};
