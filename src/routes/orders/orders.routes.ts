import { createRoute, z } from "@hono/zod-openapi";
import { SEAPORT_EIP712_TYPES } from "../../chain/seaport-types";
import { anyKey } from "../middleware/auth";
import { idempotency } from "../middleware/idempotency";
import {
  AddressInput,
  ChainIdBody,
  ChainIdQuery,
  PositiveUintString,
  Hex,
  IsoDateTime,
  IsoDateTimeInput,
  jsonBody,
  jsonContent,
  LimitQuery,
  operationErrors,
  PageQuery,
  PaginationSchema,
  READ_SECURITY,
  UintString,
} from "../../schemas/common";
import { DEFAULT_CHAIN_ID } from "../../lib/chains";
import { EXAMPLE, exampleListing } from "../../schemas/examples";
import { ListingSchema } from "../../schemas/resources";
import { IdempotencyHeaders } from "../project-wallet/project-wallet.routes";

const tags = ["Orders"];
const OrderHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 32-byte hex order hash").transform((h) => h.toLowerCase());

const Uint = z.union([z.string(), z.number()]);
/** Far more than a listing needs (one NFT; the offerer's payment and the fees). */
const MAX_ORDER_ITEMS = 100;
// Exactly Seaport's fields, strict like every other body (decision 29): an unknown field, or a
// `__proto__` or `constructor` key, is a 400 naming its path rather than dropped unseen.
const OrderItem = z.strictObject({ itemType: z.number().int(), token: z.string(), identifierOrCriteria: Uint, startAmount: Uint, endAmount: Uint });
const ConsiderationItem = z.strictObject({ ...OrderItem.shape, recipient: z.string() });

/** Seaport 1.6 OrderComponents, field by field. */
const orderComponentsShape = {
  offerer: z.string(),
  zone: z.string(),
  // Bounded so a body of thousands of empty items cannot make zod build millions of issues.
  offer: z.array(OrderItem).max(MAX_ORDER_ITEMS),
  consideration: z.array(ConsiderationItem).max(MAX_ORDER_ITEMS),
  orderType: z.number().int(),
  startTime: Uint,
  endTime: Uint,
  zoneHash: z.string(),
  salt: Uint,
  conduitKey: z.string(),
  counter: Uint,
};

export const OrderComponentsSchema = z
  .strictObject(orderComponentsShape)
  .openapi("OrderComponents", { description: "Seaport 1.6 OrderComponents; integers as decimal strings (0x-hex strings and numbers are accepted too, as seaport-js sends them)" });

/** What POST /v1/orders accepts: the components, and the one OrderParameters field seaport-js sends beside them. */
export const SubmittedOrderComponentsSchema = z
  .strictObject({
    ...orderComponentsShape,
    totalOriginalConsiderationItems: Uint.optional().openapi({
      description: "Seaport's OrderParameters field, which seaport-js sends beside the components: accepted and ignored (it is not signed, and the order is stored as its components)",
    }),
  })
  .openapi("SubmittedOrderComponents", {
    description:
      "Seaport 1.6 OrderComponents as a client built them; integers as decimal strings, 0x-hex strings or numbers (as seaport-js sends them). Exactly these fields: any other, `__proto__` and `constructor` included, is a 400 naming its path",
  });

export const OrderSchema = ListingSchema.extend({
  chainId: z.number().int(),
  status: z.enum(["active", "filled", "cancelled", "expired", "inactive"]).openapi({
    description:
      "inactive: the offerer no longer holds the token, or the order's operator (Seaport, or the conduit of its conduitKey) lost the offerer's approval; it becomes active again once the chain says it would fill",
  }),
  contractAddress: z.string(),
  tokenId: z.string(),
  currencyAddress: z.string().nullable(),
  startTime: IsoDateTime,
  endTime: IsoDateTime,
  parameters: OrderComponentsSchema,
  signature: z.string(),
  createdAt: IsoDateTime,
  updatedAt: IsoDateTime,
}).openapi("Order");

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";
const ZERO_BYTES32 = `0x${"0".repeat(64)}`;

const exampleComponents: z.input<typeof OrderComponentsSchema> = {
  offerer: EXAMPLE.recipient,
  zone: ZERO_ADDRESS,
  offer: [{ itemType: 2, token: EXAMPLE.dropAddress, identifierOrCriteria: "1", startAmount: "1", endAmount: "1" }],
  consideration: [
    { itemType: 0, token: ZERO_ADDRESS, identifierOrCriteria: "0", startAmount: "9500000000000000", endAmount: "9500000000000000", recipient: EXAMPLE.recipient },
    { itemType: 0, token: ZERO_ADDRESS, identifierOrCriteria: "0", startAmount: "500000000000000", endAmount: "500000000000000", recipient: EXAMPLE.walletAddress },
  ],
  orderType: 0,
  startTime: "1795262400",
  endTime: "1797854400",
  zoneHash: ZERO_BYTES32,
  salt: "24446860302761739304752683030156737591518664810215442929815084003596545228312",
  conduitKey: ZERO_BYTES32,
  counter: "0",
};

const exampleSignature =
  "0x4f9b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c";

const exampleOrder: z.input<typeof OrderSchema> = {
  ...exampleListing,
  chainId: 1868,
  status: "active",
  contractAddress: EXAMPLE.dropAddress,
  tokenId: "1",
  currencyAddress: null,
  startTime: "2026-11-21T12:00:00.000Z",
  endTime: "2026-12-21T12:00:00.000Z",
  parameters: exampleComponents,
  signature: exampleSignature,
  createdAt: EXAMPLE.createdAt,
  updatedAt: EXAMPLE.createdAt,
};

const exampleTypedData = {
  domain: { name: "Seaport", version: "1.6", chainId: 1868, verifyingContract: EXAMPLE.seaportAddress },
  types: SEAPORT_EIP712_TYPES,
  primaryType: "OrderComponents",
  message: exampleComponents,
};

export const PrepareListingsBody = z
  .strictObject({
    chainId: ChainIdBody.default(1868),
    offerer: AddressInput,
    items: z
      .array(
        z.strictObject({
          contractAddress: AddressInput,
          tokenId: UintString,
          quantity: UintString.default("1"),
          unitPrice: PositiveUintString,
          currencyAddress: AddressInput.optional().openapi({ description: "An ERC20 token (it must answer balanceOf and not declare ERC721/ERC1155 through ERC-165); omitted or the zero address = the chain's native currency" }),
        }),
      )
      .min(1)
      .max(20),
    startTime: IsoDateTimeInput.optional(),
    endTime: IsoDateTimeInput.optional(),
  })
  .openapi("PrepareListingsRequest");

const Step = z
  .object({
    id: z.enum(["approve", "sign"]),
    action: z.string(),
    description: z.string(),
    kind: z.enum(["transaction", "signature"]),
    items: z.array(z.record(z.string(), z.unknown())),
  })
  .openapi("ListingStep", {
    description: "approve: send each item's `data` transaction from the offerer; sign: sign `data.sign` (EIP-712) and POST `data.post.body` plus the signature",
  });

export const prepareListings = createRoute({
  method: "post",
  path: "/v1/orders/listings",
  operationId: "prepareListings",
  tags,
  security: READ_SECURITY,
  middleware: [anyKey, idempotency] as const,
  summary: "Prepare Seaport listings",
  description:
    "Builds Seaport 1.6 orders (with the drop's creator fee as a consideration item) and returns their EIP-712 typed data and Reservoir-style steps: `approve` (setApprovalForAll to Seaport) when needed, then `sign`. Drafts are kept for 1 h. The typed data has no `EIP712Domain` type (as ethers and viem expect; add it for a raw `eth_signTypedData_v4`). An order Seaport could not fill is a 400 on its item: a badge drop's token (soulbound: transfers and approvals revert), a drop whose creator fee is 100 % (the seller would get 0), or an ERC20 listing of a drop whose fee goes to the zero address.",
  request: {
    headers: IdempotencyHeaders,
    ...jsonBody(PrepareListingsBody, "The offerer and the tokens to list", {
      chainId: 1868,
      offerer: EXAMPLE.recipient,
      items: [{ contractAddress: EXAMPLE.dropAddress, tokenId: "1", quantity: "1", unitPrice: "10000000000000000" }],
      endTime: "2026-12-21T12:00:00.000Z",
    }),
  },
  responses: {
    200: jsonContent(
      z.object({ orders: z.array(z.object({ orderHash: z.string(), typedData: z.record(z.string(), z.unknown()) })), steps: z.array(Step) }).openapi("PreparedListings"),
      "Orders to sign",
      {
        orders: [{ orderHash: EXAMPLE.orderHash, typedData: exampleTypedData }],
        steps: [
          {
            id: "approve",
            action: "Approve Seaport",
            description: "Let Seaport transfer the listed tokens (once per collection)",
            kind: "transaction",
            items: [
              {
                status: "incomplete",
                data: {
                  from: EXAMPLE.recipient,
                  to: EXAMPLE.dropAddress,
                  data: `0xa22cb465${"0".repeat(24)}${EXAMPLE.seaportAddress.slice(2).toLowerCase()}${"0".repeat(63)}1`,
                  value: "0",
                },
              },
            ],
          },
          {
            id: "sign",
            action: "Sign the listings",
            description: "Sign each order's EIP-712 typed data, then POST {signature, orderHash} to /v1/orders",
            kind: "signature",
            items: [
              {
                status: "incomplete",
                orderHash: EXAMPLE.orderHash,
                data: { sign: exampleTypedData, post: { endpoint: "/v1/orders", method: "POST", body: { orderHash: EXAMPLE.orderHash } } },
              },
            ],
          },
        ],
      },
    ),
    ...operationErrors({ auth: "anyKey", body: true, idempotent: true }, "unsupported_chain", "not_found", "not_token_owner", "chain_unavailable"),
  },
});

/**
 * Every fill carries the signature as calldata, which the buyer pays for: an EIP-1271 wallet
 * accepting any bytes could otherwise list a 1 wei token behind half a megabyte of them.
 * 4 KiB holds ECDSA, bulk-order proofs (at most 836 bytes) and multisig signatures of 60 owners.
 */
const MAX_SIGNATURE_BYTES = 4_096;
const OrderSignature = Hex.max(2 + 2 * MAX_SIGNATURE_BYTES, `must be at most ${MAX_SIGNATURE_BYTES} bytes`);

export const SubmitOrderBody = z
  .union([
    z.strictObject({ signature: OrderSignature, orderHash: OrderHash }),
    z.strictObject({ signature: OrderSignature, parameters: SubmittedOrderComponentsSchema, chainId: ChainIdBody.default(1868) }),
  ])
  .openapi("SubmitOrderRequest", {
    description:
      "`{signature, orderHash}` for a prepared order, or `{signature, parameters}` for OrderComponents built elsewhere. Signatures are checked as Seaport checks them: ECDSA (65 bytes, or 64-byte EIP-2098; a 65-byte signature with v 0 or 1 is stored with v 27 or 28, the form Seaport accepts), including a bulk-order signature (the ECDSA signature of a BulkOrder tree, the order's 3-byte index and its proof, as OpenSea's multi-item listings carry), then EIP-1271 when the offerer has code (bytes kept as sent); an order its offerer validated on chain (\`Seaport.validate\`) needs none, as on Seaport: send \`0x\`; at most 4096 bytes, since every fill carries them as calldata",
  });

export const submitOrder = createRoute({
  method: "post",
  path: "/v1/orders",
  operationId: "submitOrder",
  tags,
  security: READ_SECURITY,
  middleware: [anyKey, idempotency] as const,
  summary: "Submit a signed listing",
  description:
    "Checks the signature, shape, expiry, counter, ownership and approval on-chain, then lists the order: only an order Seaport would fill is listed. Bad input is a 400 naming the field: a price of 0, a payment item of 0 (Seaport refuses to transfer nothing), an ERC20 payment to the zero address, an endTime in the past or not after startTime, an ERC1155 total below its quantity (a unit price of 0; the unit price is the total divided by the quantity, rounded down), a native payment item with a token or identifier, an ERC20 one with an identifier, a currency that is not an ERC20 (no `balanceOf`, or an NFT contract), a conduit that does not exist or has no open channel to Seaport. A stale counter, an order cancelled, filled or partly filled on Seaport, or a badge drop's token (soulbound: every transfer reverts) is a 422 `order_not_fillable`.",
  request: {
    headers: IdempotencyHeaders,
    ...jsonBody(SubmitOrderBody, "The offerer's signature and the prepared order's hash (or the full OrderComponents)", {
      signature: exampleSignature,
      orderHash: EXAMPLE.orderHash,
    }),
  },
  responses: {
    201: jsonContent(OrderSchema, "Order listed", exampleOrder),
    ...operationErrors(
      { auth: "anyKey", body: true, idempotent: true },
      "unsupported_chain",
      "not_found",
      "invalid_signature",
      "not_token_owner",
      "not_approved",
      "order_not_fillable",
      "chain_unavailable",
    ),
  },
});

export const getOrder = createRoute({
  method: "get",
  path: "/v1/orders/{orderHash}",
  operationId: "getOrder",
  tags,
  security: READ_SECURITY,
  middleware: [anyKey] as const,
  summary: "Get an order",
  description: "An order by its Seaport order hash, with its current status.",
  request: { params: z.object({ orderHash: OrderHash.openapi({ param: { name: "orderHash", in: "path" } }) }) },
  responses: {
    200: jsonContent(OrderSchema, "The order", exampleOrder),
    ...operationErrors({ auth: "anyKey", input: true }, "not_found"),
  },
});

export const OrderListQuerySchema = z
  .strictObject({
    chainId: ChainIdQuery.default(DEFAULT_CHAIN_ID).openapi({ description: `The chain (default ${DEFAULT_CHAIN_ID})` }),
    contractAddress: AddressInput.optional().openapi({ description: "The collection's orders (this or offerer is required)" }),
    tokenId: UintString.optional().openapi({ description: "Only this token's (with contractAddress)", example: "1" }),
    offerer: AddressInput.optional().openapi({ description: "Only this offerer's orders, in every collection unless contractAddress is given (this or contractAddress is required)" }),
    status: z
      .enum(["active", "filled", "cancelled", "expired", "inactive"])
      .default("active")
      .openapi({
        description:
          "`active`: active and unexpired (an active order past its end time is left out at once, as GET /v1/orders/{orderHash} shows it expired). The others as recorded: an order that lapsed is listed as `expired` once the sweep (every minute) has marked it",
      }),
    sortBy: z.enum(["price:ASC", "price:DESC"]).default("price:ASC").openapi({
      description:
        "Prices in different currencies do not compare, so in both directions orders priced in the native currency come first, then those priced in an ERC20 (by the raw token amount); equal prices by order hash in the sort's direction, so `price:DESC` lists the native-priced orders, then the ERC20-priced ones, each in the reverse of their `price:ASC` order",
    }),
    page: PageQuery,
    limit: LimitQuery,
  })
  .superRefine((query, ctx) => {
    if (query.contractAddress === undefined && query.offerer === undefined) {
      ctx.addIssue({ code: "custom", path: ["contractAddress"], message: "contractAddress or offerer is required" });
    }
    if (query.tokenId !== undefined && query.contractAddress === undefined) {
      ctx.addIssue({ code: "custom", path: ["tokenId"], message: "needs contractAddress" });
    }
  });

export const listOrders = createRoute({
  method: "get",
  path: "/v1/orders",
  operationId: "listOrders",
  tags,
  security: READ_SECURITY,
  middleware: [anyKey] as const,
  summary: "List orders",
  description:
    "A collection's, a token's or an offerer's orders on one chain (`chainId`, default 1868), cheapest first: the asks beside a token, a collection's listings by price, or what a wallet has listed. Orders are marketplace data: any key reads any project's. `status` defaults to `active` (active and unexpired; an active order's `startTime` may still be ahead, when Seaport will not fill it yet). Each order is as GET /v1/orders/{orderHash} shows it, its Seaport parameters and signature included.",
  request: { query: OrderListQuerySchema },
  responses: {
    200: jsonContent(z.object({ data: z.array(OrderSchema), pagination: PaginationSchema }).openapi("OrderPage"), "A page of orders", {
      data: [exampleOrder],
      pagination: { total: 1, page: 1, limit: 20 },
    }),
    ...operationErrors({ auth: "anyKey", input: true }, "unsupported_chain"),
  },
});
