import { createRoute, z } from "@hono/zod-openapi";
import { anyKey, secretKey } from "../middleware/auth";
import { deprecatedFor } from "../middleware/deprecation";
import { idempotency } from "../middleware/idempotency";
import { Address, jsonBody, jsonContent, operationErrors, READ_SECURITY, SECRET_SECURITY } from "../../schemas/common";
import type { ErrorCode } from "../../lib/errors";
import {
  EXAMPLE,
  exampleClaimedAsset,
  exampleClaimTransaction,
  exampleDrop,
  examplePendingTransaction,
  exampleTokenMetadata,
} from "../../schemas/examples";
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

/** Errors of the POSTs that send with the project wallet (secret key, body, Idempotency-Key). */
const walletErrors = (...codes: ErrorCode[]) => operationErrors({ auth: "secretKey", body: true, idempotent: true }, ...codes);
/** What the wallet's sequencer can refuse a transaction with. */
const SEND_ERRORS = ["insufficient_funds", "execution_reverted", "chain_unavailable"] as const;

export const deployDrop = createRoute({
  method: "post",
  path: "/v1/project-wallet/drops/deploy",
  operationId: "deployDrop",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey, idempotency] as const,
  summary: "Deploy a drop",
  description:
    "Deploys a DropERC721 clone through the DropFactory (CREATE2, so `drop.contractAddress` is final in the response) with the project wallet, and creates its collection.",
  request: {
    headers: IdempotencyHeaders,
    ...jsonBody(DeployDropBody, "The drop's contract settings and metadata", {
      chainId: 1868,
      name: "Genesis Pass",
      description: "Access pass for the Genesis season",
      metadataStorageType: "metadata-api",
      defaultTokenMetadata: { name: "Genesis Pass", image: "https://assets.mintyard.example.net/genesis/pass.png" },
      totalSupply: 1000,
      unitPrice: 0.01,
      limitPerWallet: 2,
      creatorFeeBps: 500,
    }),
  },
  responses: {
    201: jsonContent(
      z.object({ drop: DropSchema, transactions: z.array(TransactionSchema) }).openapi("DeployDropResponse"),
      "Deployment sent (transaction pending)",
      { drop: exampleDrop, transactions: [examplePendingTransaction] },
    ),
    ...walletErrors("unsupported_chain", ...SEND_ERRORS),
  },
});

export const claim = createRoute({
  method: "post",
  path: "/v1/project-wallet/drops/claim",
  operationId: "claimDrop",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey, idempotency] as const,
  summary: "Claim tokens to a recipient",
  description:
    "The project wallet mints `quantity` tokens of its own drop to `recipientAddress` (it pays gas, not the public price). Assets show the token ids the mint is expected to produce; the receipt's Transfer logs are authoritative once confirmed.",
  request: {
    headers: IdempotencyHeaders,
    ...jsonBody(ClaimBody, "The drop, the recipient and how many tokens", {
      chainId: 1868,
      contractAddress: EXAMPLE.dropAddress,
      recipientAddress: EXAMPLE.recipient,
      quantity: 2,
      overrideMetadata: [exampleTokenMetadata, { name: "Pass #2", image: "https://assets.mintyard.example.net/genesis/2.png" }],
    }),
  },
  responses: {
    201: jsonContent(
      z.object({ assets: z.array(ClaimedAssetSchema), transactions: z.array(TransactionSchema) }).openapi("ClaimResponse"),
      "Claim sent",
      {
        assets: [
          exampleClaimedAsset,
          { ...exampleClaimedAsset, tokenId: "2", name: "Pass #2", imageUrl: "https://assets.mintyard.example.net/genesis/2.png", tokenUri: `${exampleDrop.baseUri}2` },
        ],
        transactions: [exampleClaimTransaction],
      },
    ),
    ...walletErrors("unsupported_chain", "not_found", "sold_out", ...SEND_ERRORS),
  },
});

export const mint = createRoute({
  method: "post",
  path: "/v1/project-wallet/mint",
  operationId: "mint",
  tags,
  security: SECRET_SECURITY,
  middleware: [deprecatedFor("/v1/project-wallet/drops/claim"), secretKey, idempotency] as const,
  deprecated: true,
  summary: "Mint to a recipient (deprecated)",
  description:
    "Deprecated: use the claim endpoint. Every response the route answers, errors included, carries `Deprecation: true` and a `Link` to the claim endpoint (a 413 from the app-wide body limit, which runs before any route, does not). `tokenId` is ignored because the drop assigns ids.",
  request: {
    headers: IdempotencyHeaders,
    ...jsonBody(MintBody, "The drop, the recipient and the metadata of every minted token", {
      chainId: 1868,
      contractAddress: EXAMPLE.dropAddress,
      recipientAddress: EXAMPLE.recipient,
      quantity: 1,
      metadata: exampleTokenMetadata,
    }),
  },
  responses: {
    201: jsonContent(TransactionSchema, "Mint sent", exampleClaimTransaction),
    ...walletErrors("unsupported_chain", "not_found", "sold_out", ...SEND_ERRORS),
  },
});

export const transfer = createRoute({
  method: "post",
  path: "/v1/project-wallet/transfer",
  operationId: "transfer",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey, idempotency] as const,
  summary: "Transfer native currency or an ERC20",
  description: "Sends from the project wallet after checking its balance (422 insufficient_funds). A recipient of the zero address is a 400: the amount would be burned.",
  request: {
    headers: IdempotencyHeaders,
    ...jsonBody(TransferBody, "What to send, and to whom", {
      type: "native",
      chainId: 1868,
      recipientAddress: EXAMPLE.recipient,
      amount: "1000000000000000",
    }),
  },
  responses: {
    201: jsonContent(TransactionSchema, "Transfer sent", {
      ...examplePendingTransaction,
      to: EXAMPLE.recipient,
      value: "1000000000000000",
      data: "0x",
    }),
    ...walletErrors("unsupported_chain", ...SEND_ERRORS),
  },
});

const BuyResultItem = z.discriminatedUnion("type", [
  z.object({ type: z.literal("transaction"), result: TransactionSchema }),
  z.object({ type: z.literal("error"), result: z.object({ code: z.string(), message: z.string() }) }),
]);

export const buyOrders = createRoute({
  method: "post",
  path: "/v1/project-wallet/orders/buy",
  operationId: "buyOrders",
  tags,
  security: SECRET_SECURITY,
  middleware: [secretKey, idempotency] as const,
  summary: "Buy listed orders",
  description:
    "Fulfils each order on Seaport with the project wallet. Needs the secret key (it spends project funds). Orders priced in an ERC20 are paid from the wallet's token balance: an order that balance cannot cover after the earlier orders of the request is an `insufficient_funds` item; when the wallet has not approved Seaport for that token, the order's first result item is an unlimited `approve` transaction and its fill follows on the next nonce. Each token is approved once even across simultaneous requests. An order this project is already buying (its fill still pending, or sent by a request arriving at the same time) is an `order_not_fillable` item. An order that cannot be bought (unknown, filled, cancelled, expired, not started, on another chain) yields an `order_not_fillable` error item; when Seaport itself says the order is cancelled or (even partly) filled, the buy also records that status (best effort), so the listing stops being offered before the indexer sees the event; other failures are items with their own code (`execution_reverted`, `chain_unavailable`, `rate_limited` when the wallet's engine is busy: nothing was sent, retry that order with a new Idempotency-Key; `internal_error`: either the service failed on that order after an earlier one of the request was sent, and no fill of it was sent, or the wallet's engine did not answer and the message names a transaction that may have been sent: look it up with GET /v1/transactions/{id}); the others still go through. One result per hash, in the request's order, its `id` the hash as sent; a hash repeated in one request is a 400.",
  request: {
    headers: IdempotencyHeaders,
    ...jsonBody(BuyBody, "The chain and the orders to buy, in order", {
      chainId: 1868,
      orderHashes: [EXAMPLE.orderHash, "0x7c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5"],
    }),
  },
  responses: {
    200: jsonContent(z.array(z.object({ id: z.string(), result: z.array(BuyResultItem) })).openapi("BuyResponse"), "Per-order results", [
      {
        id: EXAMPLE.orderHash,
        result: [{ type: "transaction", result: { ...examplePendingTransaction, to: EXAMPLE.seaportAddress, value: "10000000000000000", data: "0xfb0f3ee1" } }],
      },
      {
        id: "0x7c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5",
        result: [{ type: "error", result: { code: "order_not_fillable", message: "the order has expired" } }],
      },
    ]),
    ...walletErrors("unsupported_chain"),
  },
});

export const getProjectWallet = createRoute({
  method: "get",
  path: "/v1/project-wallet",
  operationId: "getProjectWallet",
  tags,
  security: READ_SECURITY,
  middleware: [anyKey] as const,
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
      { address: EXAMPLE.walletAddress, balances: [{ chainId: 1868, symbol: "ETH", balance: "99987654320000000000" }] },
    ),
    ...operationErrors({ auth: "anyKey" }),
  },
});
