import { createRoute, z } from "@hono/zod-openapi";
import { anyKey } from "../../lib/auth";
import { idempotency } from "../../lib/idempotency";
import { AddressInput, ChainIdBody, PositiveUintString, errorResponses, Hex, IsoDateTime, jsonBody, jsonContent, READ_SECURITY, UintString } from "../../schemas/common";
import { ListingSchema } from "../../schemas/resources";
import { IdempotencyHeaders } from "../project-wallet/project-wallet.routes";

const tags = ["Orders"];
const OrderHash = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 32-byte hex order hash").transform((h) => h.toLowerCase());

const Uint = z.union([z.string(), z.number()]);
const OrderItem = z.object({ itemType: z.number().int(), token: z.string(), identifierOrCriteria: Uint, startAmount: Uint, endAmount: Uint });
const ConsiderationItem = OrderItem.extend({ recipient: z.string() });

export const OrderComponentsSchema = z
  .object({
    offerer: z.string(),
    zone: z.string(),
    offer: z.array(OrderItem),
    consideration: z.array(ConsiderationItem),
    orderType: z.number().int(),
    startTime: Uint,
    endTime: Uint,
    zoneHash: z.string(),
    salt: Uint,
    conduitKey: z.string(),
    counter: Uint,
  })
  .openapi("OrderComponents", { description: "Seaport 1.6 OrderComponents; integers as decimal strings (0x-hex strings and numbers are accepted too, as seaport-js sends them)" });

export const OrderSchema = ListingSchema.extend({
  chainId: z.number().int(),
  status: z.enum(["active", "filled", "cancelled", "expired", "inactive"]),
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
          currencyAddress: AddressInput.optional(),
        }),
      )
      .min(1)
      .max(20),
    startTime: IsoDateTime.optional(),
    endTime: IsoDateTime.optional(),
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
  tags,
  security: READ_SECURITY,
  middleware: [anyKey, idempotency] as const,
  summary: "Prepare Seaport listings",
  description:
    "Builds Seaport 1.6 orders (with the drop's creator fee as a consideration item) and returns their EIP-712 typed data and Reservoir-style steps: `approve` (setApprovalForAll to Seaport) when needed, then `sign`. Drafts are kept for 1 h.",
  request: { headers: IdempotencyHeaders, ...jsonBody(PrepareListingsBody) },
  responses: {
    200: jsonContent(z.object({ orders: z.array(z.object({ orderHash: z.string(), typedData: z.record(z.string(), z.unknown()) })), steps: z.array(Step) }).openapi("PreparedListings"), "Orders to sign"),
    ...errorResponses("validation_error", "unsupported_chain", "unauthorized", "not_found", "idempotency_conflict", "not_token_owner", "chain_unavailable"),
  },
});

export const SubmitOrderBody = z
  .union([
    z.strictObject({ signature: Hex, orderHash: OrderHash }),
    z.strictObject({ signature: Hex, parameters: OrderComponentsSchema, chainId: ChainIdBody.default(1868) }),
  ])
  .openapi("SubmitOrderRequest", { description: "`{signature, orderHash}` for a prepared order, or `{signature, parameters}` for OrderComponents built elsewhere (65-byte or 64-byte EIP-2098 signatures)" });

export const submitOrder = createRoute({
  method: "post",
  path: "/v1/orders",
  tags,
  security: READ_SECURITY,
  middleware: [anyKey, idempotency] as const,
  summary: "Submit a signed listing",
  description: "Checks the signature, shape, expiry, counter, ownership and approval on-chain, then lists the order.",
  request: { headers: IdempotencyHeaders, ...jsonBody(SubmitOrderBody) },
  responses: {
    201: jsonContent(OrderSchema, "Order listed"),
    ...errorResponses("validation_error", "unsupported_chain", "unauthorized", "not_found", "conflict", "idempotency_conflict", "invalid_signature", "not_token_owner", "not_approved", "order_not_fillable", "chain_unavailable"),
  },
});

export const getOrder = createRoute({
  method: "get",
  path: "/v1/orders/{orderHash}",
  tags,
  security: READ_SECURITY,
  middleware: [anyKey] as const,
  summary: "Get an order",
  description: "An order by its Seaport order hash, with its current status.",
  request: { params: z.object({ orderHash: OrderHash.openapi({ param: { name: "orderHash", in: "path" } }) }) },
  responses: { 200: jsonContent(OrderSchema, "The order"), ...errorResponses("validation_error", "unauthorized", "not_found") },
});
