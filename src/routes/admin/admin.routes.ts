import { createRoute, z } from "@hono/zod-openapi";
import { requireAdmin } from "../middleware/auth";
import { adminIdempotency } from "../middleware/idempotency";
import { ADMIN_SECURITY, Address, BooleanQuery, IsoDateTime, jsonBody, jsonContent, MediaUrl, operationErrors, Uuid, uuidPathParam } from "../../schemas/common";
import { EXAMPLE, exampleCollection } from "../../schemas/examples";
import { CollectionSchema } from "../../schemas/resources";
import { IdempotencyHeaders } from "../project-wallet/project-wallet.routes";

const tags = ["Admin"];
const security = ADMIN_SECURITY;

export const ProjectSchema = z
  .object({ id: Uuid, name: z.string(), walletAddress: Address, createdAt: IsoDateTime })
  .openapi("Project");

export const CreatedKeySchema = z
  .object({
    id: Uuid,
    kind: z.enum(["api", "secret"]),
    key: z.string().openapi({ description: "The plain key. Shown only in this response; store it now.", example: "sk_3fA9…" }),
    prefix: z.string().openapi({ example: "sk_3fA9Qz" }),
    projectId: Uuid,
    createdAt: IsoDateTime,
  })
  .openapi("CreatedKey");

export const KeySchema = z
  .object({
    id: Uuid,
    kind: z.enum(["api", "secret"]),
    prefix: z.string(),
    projectId: Uuid,
    createdAt: IsoDateTime,
    revokedAt: IsoDateTime.nullable(),
    createdByKeyId: Uuid.nullable().openapi({
      description: "The secret key whose dashboard session created this key; null when it was created with the admin token (API or dashboard), or before creators were recorded",
    }),
  })
  .openapi("Key");

const ProjectIdParams = z.object({ id: uuidPathParam("id") });
const exampleProject: z.input<typeof ProjectSchema> = { id: EXAMPLE.projectId, name: "Acme", walletAddress: EXAMPLE.walletAddress, createdAt: EXAMPLE.createdAt };
const exampleKey: z.input<typeof KeySchema> = {
  id: "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d",
  kind: "secret",
  prefix: "sk_3fA9Qz",
  projectId: EXAMPLE.projectId,
  createdAt: EXAMPLE.createdAt,
  revokedAt: null,
  createdByKeyId: null,
};

const KeyIdParams = z.object({ keyId: uuidPathParam("keyId") });

export const createProject = createRoute({
  method: "post",
  path: "/v1/admin/projects",
  operationId: "createProject",
  tags,
  security,
  middleware: [requireAdmin, adminIdempotency] as const,
  summary: "Create a project",
  description:
    "Creates a project with its own project wallet (the next HD index of WALLET_MNEMONIC). With an `Idempotency-Key`, a retry replays the first response instead of creating a second project.",
  request: {
    headers: IdempotencyHeaders,
    ...jsonBody(z.strictObject({ name: z.string().trim().min(1).max(200) }).openapi({ example: { name: "Acme" } }), "The project's display name", { name: "Acme" }),
  },
  responses: {
    201: jsonContent(ProjectSchema, "Project created", exampleProject),
    ...operationErrors({ auth: "admin", body: true, idempotent: true }),
  },
});

export const listProjects = createRoute({
  method: "get",
  path: "/v1/admin/projects",
  operationId: "listProjects",
  tags,
  security,
  middleware: [requireAdmin] as const,
  summary: "List projects",
  description: "Every project, newest first.",
  responses: {
    200: jsonContent(z.object({ data: z.array(ProjectSchema) }), "Projects", { data: [exampleProject] }),
    ...operationErrors({ auth: "admin" }),
  },
});

export const createKey = createRoute({
  method: "post",
  path: "/v1/admin/projects/{id}/keys",
  operationId: "createKey",
  tags,
  security,
  middleware: [requireAdmin] as const,
  summary: "Create an API key or secret key",
  description:
    "`api` keys (`ak_…`) read and submit orders; `secret` keys (`sk_…`) also spend with the project wallet. The plain key is returned once and stored only as SHA-256. `Idempotency-Key` is ignored here (decision 31): replaying the response would mean storing the plain key. A retry after a lost response creates another key: list the project's keys and revoke the one you never received.",
  request: {
    params: ProjectIdParams,
    ...jsonBody(z.strictObject({ kind: z.enum(["api", "secret"]) }).openapi({ example: { kind: "secret" } }), "`api` or `secret`", { kind: "secret" }),
  },
  responses: {
    201: jsonContent(CreatedKeySchema, "Key created", {
      id: exampleKey.id,
      kind: "secret",
      key: "sk_3fA9Qz7LmN2pR5tV8xB1dF4gH6jK9mP0qS3uW5yZ",
      prefix: "sk_3fA9Qz",
      projectId: EXAMPLE.projectId,
      createdAt: EXAMPLE.createdAt,
    }),
    ...operationErrors({ auth: "admin", input: true, body: true }, "not_found"),
  },
});

export const listKeys = createRoute({
  method: "get",
  path: "/v1/admin/projects/{id}/keys",
  operationId: "listKeys",
  tags,
  security,
  middleware: [requireAdmin] as const,
  summary: "List a project's keys",
  description: "Key ids, kinds and display prefixes (never the keys themselves).",
  request: { params: ProjectIdParams },
  responses: {
    200: jsonContent(z.object({ data: z.array(KeySchema) }), "Keys", { data: [exampleKey] }),
    ...operationErrors({ auth: "admin", input: true }, "not_found"),
  },
});

export const revokeKey = createRoute({
  method: "delete",
  path: "/v1/admin/keys/{keyId}",
  operationId: "revokeKey",
  tags,
  security,
  middleware: [requireAdmin] as const,
  summary: "Revoke a key",
  description:
    "Marks the key's D1 row revoked and deletes its KV cache entry. The instance that revoked it refuses it at once; other instances forget it within 5 s, and KV's own propagation to other locations can take longer. Revoking twice is a no-op. With `withDescendants=true`, every key created by this key's dashboard sessions is revoked too, and the keys those created, in one statement (after a secret key leaks: the keys made with it would otherwise stay valid).",
  request: {
    params: KeyIdParams,
    query: z.strictObject({
      withDescendants: BooleanQuery.optional().openapi({ description: "Also revoke every key this key created (`createdByKeyId`), transitively" }),
    }),
  },
  responses: {
    204: { description: "Revoked (no body)" },
    ...operationErrors({ auth: "admin", input: true }, "not_found"),
  },
});

export const RegisterCollectionBody = z
  .strictObject({
    chainId: z.number().int().positive().default(1868),
    contractAddress: z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 20-byte hex address").transform((a) => a.toLowerCase()),
    slug: z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/, "must be a plain lower-case word (a-z, 0-9, -)"),
    schema: z.enum(["ERC721", "ERC1155"]).optional().openapi({ description: "Detected with ERC-165 when omitted" }),
    name: z.string().max(200).optional(),
    description: z.string().max(5000).optional(),
    imageUrl: MediaUrl.optional(),
    isVerified: z.boolean().default(false),
    fromBlock: z.number().int().min(0).optional().openapi({ description: "First block to index (default: the block after the chain cursor)" }),
  })
  .openapi("RegisterCollectionRequest");

export const registerCollection = createRoute({
  method: "post",
  path: "/v1/admin/collections",
  operationId: "registerCollection",
  tags,
  security,
  middleware: [requireAdmin, adminIdempotency] as const,
  summary: "Register an existing collection",
  description:
    "Tracks an ERC721/ERC1155 contract deployed elsewhere; the indexer then follows its transfers and metadata. With an `Idempotency-Key`, a retry replays the first response.",
  request: {
    headers: IdempotencyHeaders,
    ...jsonBody(RegisterCollectionBody, "The contract and how to show it", {
      chainId: 1868,
      contractAddress: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
      slug: "soneium-punks",
      name: "Soneium Punks",
      isVerified: true,
      fromBlock: 1200000,
    }),
  },
  responses: {
    201: jsonContent(CollectionSchema, "Collection registered", {
      ...exampleCollection,
      slug: "soneium-punks",
      contractAddress: "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
      name: "Soneium Punks",
      imageUrl: null,
      description: null,
      isVerified: true,
    }),
    ...operationErrors({ auth: "admin", body: true, idempotent: true }, "unsupported_chain", "conflict", "chain_unavailable"),
  },
});

export const runIndexer = createRoute({
  method: "post",
  path: "/v1/admin/index",
  operationId: "runIndexer",
  tags,
  security,
  middleware: [requireAdmin] as const,
  summary: "Run the indexer now",
  description:
    "Runs one indexer pass (as the cron does) for every configured chain, then the housekeeping (expired listings, started listings, idempotency records, the webhook delivery log), and reports the block ranges read. " +
    "A chain whose RPC failed (no answer, or a block refused even for a single address, its receipts refused too) makes it a 502 `chain_unavailable` whose message gives each such chain's reason; a chain or housekeeping step that failed inside the service makes it a 500 `internal_error`. Both name the chains that were indexed, and the housekeeping ran either way.",
  responses: {
    200: jsonContent(
      z.object({ chains: z.array(z.object({ chainId: z.number().int(), fromBlock: z.number().int(), toBlock: z.number().int(), logs: z.number().int() })) }).openapi("IndexerRun"),
      "Indexer pass finished",
      { chains: [{ chainId: 1868, fromBlock: 1200001, toBlock: 1200240, logs: 17 }] },
    ),
    ...operationErrors({ auth: "admin" }, "chain_unavailable"),
  },
});
