import { createRoute, z } from "@hono/zod-openapi";
import { anyKey } from "../middleware/auth";
import {
  AddressInput,
  BooleanQuery,
  ChainIdQuery,
  jsonContent,
  LimitQuery,
  operationErrors,
  PageQuery,
  PaginationSchema,
  READ_SECURITY,
  UintString,
} from "../../schemas/common";
import { exampleAsset } from "../../schemas/examples";
import { AssetSchema } from "../../schemas/resources";

const tags = ["Assets"];

export const ExploreQuerySchema = z.strictObject({
  chainId: ChainIdQuery.optional(),
  contractAddress: AddressInput.optional(),
  ownerAddress: AddressInput.optional().openapi({ description: "Only assets this address holds (balance > 0)" }),
  search: z
    .string()
    .trim()
    .min(1)
    .max(200)
    // A NUL ends FTS5's input mid-phrase (a 500); names never hold control characters.
    .regex(/^[^\u0000-\u001f\u007f-\u009f]*$/, "must not contain control characters")
    .optional()
    .openapi({ description: "Case-insensitive substring of the asset name" }),
  isVerified: BooleanQuery.optional().openapi({ description: "Only assets of verified (true) or unverified (false) collections" }),
  hasListings: BooleanQuery.optional().openapi({ description: "Only assets with (true) or without (false) a live listing, as of the last sweep for listings that expired or started since (the cron runs every minute)" }),
  page: PageQuery,
  limit: LimitQuery,
  sortBy: z
    .enum(["createdAt:DESC", "createdAt:ASC", "price:ASC", "price:DESC"])
    .default("createdAt:DESC")
    .openapi({
      description:
        "Price sorts use the best listing. Prices in different currencies do not compare, so in both directions assets priced in the native currency come first, then assets listed only in an ERC20 (by the raw token amount), then unlisted assets",
    }),
});

export const AssetPageSchema = z.object({ data: z.array(AssetSchema), pagination: PaginationSchema }).openapi("AssetPage");

export const exploreAssets = createRoute({
  method: "get",
  path: "/v1/assets/explore",
  operationId: "exploreAssets",
  tags,
  security: READ_SECURITY,
  middleware: [anyKey] as const,
  summary: "Search assets",
  description: "Assets across all collections, each with its best live listing (active, started and unexpired; native currency first, see `Asset.bestListing`) and its collection.",
  request: { query: ExploreQuerySchema },
  responses: {
    200: jsonContent(AssetPageSchema, "A page of assets", { data: [exampleAsset], pagination: { total: 1, page: 1, limit: 20 } }),
    ...operationErrors({ auth: "anyKey", input: true }, "unsupported_chain"),
  },
});

export const getAsset = createRoute({
  method: "get",
  path: "/v1/assets/{chainId}/{contractAddress}/{tokenId}",
  operationId: "getAsset",
  tags,
  security: READ_SECURITY,
  middleware: [anyKey] as const,
  summary: "Get an asset",
  description: "One token with its best listing and collection. A burned ERC-721 token is 404 once the indexer has applied its burn.",
  request: {
    params: z.object({
      chainId: ChainIdQuery.openapi({ param: { name: "chainId", in: "path" } }),
      contractAddress: AddressInput.openapi({ param: { name: "contractAddress", in: "path" } }),
      tokenId: UintString.openapi({ param: { name: "tokenId", in: "path" }, example: "1" }),
    }),
  },
  responses: {
    200: jsonContent(AssetSchema, "Asset found", exampleAsset),
    ...operationErrors({ auth: "anyKey", input: true }, "unsupported_chain", "not_found"),
  },
});
