// Resource shapes of the interface (seed) with the design's decisions (DESIGN §4).
import { z } from "@hono/zod-openapi";
import { JSON_DEPTH_MESSAGE, jsonByteSize, MAX_JSON_DEPTH, PROTOTYPE_KEY_MESSAGE, prototypeKeyPath, withinJsonDepth } from "./json-bounds";
import { Address, IsoDateTime, LinkUrl, MediaUrl, Uuid } from "./common";

export const ListingSchema = z
  .object({
    unitPrice: z.string().openapi({ description: "Price per unit the buyer pays, integer in the currency's smallest unit", example: "10000000000000000" }),
    priceSymbol: z.string().openapi({ example: "ETH" }),
    quantity: z.string().openapi({ example: "1" }),
    offerer: Address,
    orderHash: z.string().openapi({ example: "0x2a7d7e0b5b1e8f0c0f7e4c4f1b9b7c8d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b" }),
  })
  .openapi("Listing");

export const CollectionSchema = z
  .object({
    id: Uuid,
    slug: z.string().openapi({ example: "soneium:0x5fbdb2315678afecb367f032d93f642f64180aa3" }),
    chainId: z.number().int(),
    contractAddress: Address,
    name: z.string().nullable().optional(),
    imageUrl: z.string().nullable().optional(),
    description: z.string().nullable().optional(),
    isVerified: z.boolean().optional(),
  })
  .openapi("Collection");

export const AssetSchema = z
  .object({
    id: Uuid,
    chainId: z.number().int(),
    contractAddress: Address,
    tokenId: z.string().openapi({ example: "1" }),
    schema: z.enum(["ERC721", "ERC1155"]),
    name: z.string().nullable().optional(),
    description: z.string().nullable().optional(),
    imageUrl: z.string().nullable().optional(),
    animationUrl: z.string().nullable().optional(),
    tokenUri: z.string().nullable().optional(),
    // Unions rather than .nullable(): zod-to-openapi writes a nullable registered schema as a
    // nullable component (Listing itself became `object | null`) or an allOf no null can match.
    bestListing: z
      .union([ListingSchema, z.null()])
      .optional()
      .openapi({ description: "The cheapest live listing (active, started, not expired), in the native currency when the token has one; null when none. A listing submitted before its start time appears within a minute of starting (the sweep)" }),
    collection: z.union([CollectionSchema, z.null()]).optional(),
  })
  .openapi("Asset");

/** Claim responses predict the minted tokens before the transaction confirms: no `id` yet. */
export const ClaimedAssetSchema = AssetSchema.omit({ id: true }).openapi("ClaimedAsset");

export const TransactionStatusSchema = z.enum(["pending", "confirmed", "reverted", "failed"]).openapi("TransactionStatus", {
  description:
    "pending: signed and broadcast, no receipt · confirmed: mined and succeeded · reverted: mined and failed · failed: never mined (errorMessage says why)",
});

export const TransactionSchema = z
  .object({
    id: Uuid,
    jobId: Uuid.openapi({ description: "Groups the transactions of one request" }),
    status: TransactionStatusSchema,
    projectId: Uuid,
    transactionHash: z.string().openapi({ description: "Latest hash (hex); a fee bump replaces it. Known from signing, so present from `pending` on", example: "0x9c1f…" }),
    chainId: z.number().int(),
    from: Address,
    to: Address,
    value: z.string().openapi({ example: "0" }),
    data: z.string().openapi({ example: "0x" }),
    gasUsed: z.string().nullable(),
    gasPrice: z.string().nullable(),
    totalGasFee: z.string().nullable(),
    metadata: z.string().nullable(),
    errorMessage: z.string().nullable(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  })
  .openapi("Transaction");

export const DropSchema = z
  .object({
    id: Uuid,
    chainId: z.number().int(),
    contractAddress: Address,
    name: z.string(),
    symbol: z.string(),
    description: z.string(),
    ownerAddress: Address,
    blindboxKey: z.string().nullable().openapi({ description: "32-byte hex secret; null unless the reader's project owns the drop" }),
    imageUrl: z.string(),
    baseUri: z.string(),
    creatorFeeAddress: Address,
    creatorFeeBps: z.number().int(),
    projectId: Uuid,
    metadataRepoId: z.string().nullable(),
    createdAt: IsoDateTime,
    updatedAt: IsoDateTime,
  })
  .openapi("Drop");

/** One token's metadata as JSON: room for a 10,000-character description in any script, 200 attributes and more. */
export const MAX_TOKEN_METADATA_BYTES = 64 * 1024;

const refuseProtoKeys = (value: unknown, ctx: z.RefinementCtx) => {
  const path = prototypeKeyPath(value);
  if (path !== null) ctx.addIssue({ code: "custom", path, message: PROTOTYPE_KEY_MESSAGE });
};

/**
 * A JSON object passed through as parsed: a record schema copies it key by key, and the copy
 * loses a `__proto__` key before any refinement could see it.
 */
const JsonObjectSchema = z
  .custom<Record<string, unknown>>((value) => value !== null && typeof value === "object" && !Array.isArray(value), "Invalid input: expected object")
  .openapi({ type: "object", additionalProperties: {} });

export const TokenAttributeSchema = z
  .strictObject({
    trait_type: z.string().min(1).max(200),
    value: z
      .unknown()
      .refine((v) => v !== undefined, "required")
      .refine(withinJsonDepth, JSON_DEPTH_MESSAGE)
      .superRefine(refuseProtoKeys)
      .openapi({ description: `Any JSON value nesting at most ${MAX_JSON_DEPTH} levels, with no \`__proto__\` key` }),
    display_type: z.string().max(100).optional(),
  })
  .openapi("TokenAttribute");

export const TokenMetadataSchema = z
  .strictObject({
    name: z.string().min(1).max(500),
    description: z.string().max(10_000).optional(),
    image: MediaUrl.optional(),
    animationUrl: MediaUrl.optional(),
    externalUrl: LinkUrl.optional(),
    attributes: z.array(TokenAttributeSchema).max(200).optional(),
    properties: JsonObjectSchema.refine(withinJsonDepth, JSON_DEPTH_MESSAGE)
      .superRefine(refuseProtoKeys)
      .openapi({ description: `Any JSON object nesting at most ${MAX_JSON_DEPTH} levels, with no \`__proto__\` key` })
      .optional(),
  })
  .superRefine((metadata, ctx) => {
    // Depth is each field's own check; the walk itself cannot overflow.
    const bytes = jsonByteSize(metadata, Infinity);
    if (bytes !== null && bytes > MAX_TOKEN_METADATA_BYTES) {
      ctx.addIssue({ code: "custom", path: [], message: `is ${bytes} bytes as JSON; at most ${MAX_TOKEN_METADATA_BYTES}` });
    }
  })
  .openapi("TokenMetadata", {
    description: `OpenSea-style token metadata, at most ${MAX_TOKEN_METADATA_BYTES} bytes as JSON. \`externalUrl\` is an http(s), ipfs://, ipns:// or ar:// URL; \`image\` and \`animationUrl\` may also be data: URLs of a PNG, JPEG, GIF, WebP or AVIF image (javascript:, file:, and every other data: URL, SVG and HTML included, are a 400: these links reach every page that shows the token; host SVG, HTML, video, audio and 3D media at an https or ipfs URL).`,
  });

export type Listing = z.infer<typeof ListingSchema>;
export type Collection = z.infer<typeof CollectionSchema>;
export type Asset = z.infer<typeof AssetSchema>;
export type ClaimedAsset = z.infer<typeof ClaimedAssetSchema>;
export type DropView = z.infer<typeof DropSchema>;
export type TokenMetadata = z.infer<typeof TokenMetadataSchema>;
