import { createRoute, z } from "@hono/zod-openapi";
import { secretKey } from "../../lib/auth";
import { idempotency } from "../../lib/idempotency";
import { Address, errorResponses, jsonBody, jsonContent, SECRET_SECURITY } from "../../schemas/common";
import { BuyBody, ClaimBody, DeployDropBody, MintBody, TransferBody } from "../../schemas/project-wallet";
import { ClaimedAssetSchema, DropSchema, TransactionSchema } from "../../schemas/resources";

const tags = ["Project wallet"];

export const IdempotencyHeaders = z.object({
  "idempotency-key": z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({
      param: { name: "idempotency-key", in: "header" },
      description: "Replays within 24 h return the first response with `Idempotent-Replayed: true`; reuse with another body is 409",
    }),
});

const walletErrors = errorResponses(
  "validation_error",
  "unsupported_chain",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "idempotency_conflict",
  "insufficient_funds",
  "execution_reverted",
  "rate_limited",
  "chain_unavailable",
);

export const deployDrop = createRoute({
  method: "post",
  path: "/v1/project-wallet/drops/deploy",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey, idempotency] as const,
  summary: "Deploy a drop",
  description:
    "Deploys a DropERC721 clone through the DropFactory (CREATE2, so `drop.contractAddress` is final in the response) with the project wallet, and creates its collection.",
  request: { headers: IdempotencyHeaders, ...jsonBody(DeployDropBody) },
  responses: {
    201: jsonContent(z.object({ drop: DropSchema, transactions: z.array(TransactionSchema) }).openapi("DeployDropResponse"), "Deployment sent (transaction pending)"),
    ...walletErrors,
  },
});

export const claim = createRoute({
  method: "post",
  path: "/v1/project-wallet/drops/claim",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey, idempotency] as const,
  summary: "Claim tokens to a recipient",
  description:
    "The project wallet mints `quantity` tokens of its own drop to `recipientAddress` (it pays gas, not the public price). Assets show the token ids the mint is expected to produce; the receipt's Transfer logs are authoritative once confirmed.",
  request: { headers: IdempotencyHeaders, ...jsonBody(ClaimBody) },
  responses: {
    201: jsonContent(z.object({ assets: z.array(ClaimedAssetSchema), transactions: z.array(TransactionSchema) }).openapi("ClaimResponse"), "Claim sent"),
    ...walletErrors,
    ...errorResponses("sold_out"),
  },
});

export const mint = createRoute({
  method: "post",
  path: "/v1/project-wallet/mint",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey, idempotency] as const,
  deprecated: true,
  summary: "Mint to a recipient (deprecated)",
  description: "Deprecated: use the claim endpoint. Responds with a `Deprecation: true` header. `tokenId` is ignored because the drop assigns ids.",
  request: { headers: IdempotencyHeaders, ...jsonBody(MintBody) },
  responses: {
    201: jsonContent(TransactionSchema, "Mint sent"),
    ...walletErrors,
    ...errorResponses("sold_out"),
  },
});

export const transfer = createRoute({
  method: "post",
  path: "/v1/project-wallet/transfer",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey, idempotency] as const,
  summary: "Transfer native currency or an ERC20",
  description: "Sends from the project wallet after checking its balance (422 insufficient_funds).",
  request: { headers: IdempotencyHeaders, ...jsonBody(TransferBody) },
  responses: { 201: jsonContent(TransactionSchema, "Transfer sent"), ...walletErrors },
});

const BuyResultItem = z.discriminatedUnion("type", [
  z.object({ type: z.literal("transaction"), result: TransactionSchema }),
  z.object({ type: z.literal("error"), result: z.object({ code: z.string(), message: z.string() }) }),
]);

export const buyOrders = createRoute({
  method: "post",
  path: "/v1/project-wallet/orders/buy",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey, idempotency] as const,
  summary: "Buy listed orders",
  description:
    "Fulfils each order on Seaport with the project wallet. Needs the secret key (it spends project funds). An order that cannot be bought yields an error item; the others still go through.",
  request: { headers: IdempotencyHeaders, ...jsonBody(BuyBody) },
  responses: {
    200: jsonContent(z.array(z.object({ id: z.string(), result: z.array(BuyResultItem) })).openapi("BuyResponse"), "Per-order results"),
    ...walletErrors,
  },
});

export const getProjectWallet = createRoute({
  method: "get",
  path: "/v1/project-wallet",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey] as const,
  summary: "The project wallet",
  description: "Its address and native balance per configured chain, so a project knows what to fund.",
  responses: {
    200: jsonContent(
      z
        .object({
          address: Address,
          balances: z.array(z.object({ chainId: z.number().int(), symbol: z.string(), balance: z.string().nullable(), error: z.string().optional() })),
        })
        .openapi("ProjectWallet"),
      "Wallet",
    ),
    ...errorResponses("unauthorized", "forbidden"),
  },
});
