import { createRoute, z } from "@hono/zod-openapi";
import { anyKey } from "../middleware/auth";
import { ChainIdQuery, jsonContent, limitQuery, operationErrors, READ_SECURITY } from "../../schemas/common";
import { exampleCollection } from "../../schemas/examples";
import { CollectionSchema } from "../../schemas/resources";

export const TrendingEntrySchema = z
  .object({
    collection: CollectionSchema,
    volume: z.string().openapi({ description: "Sale volume in the period, native currency, smallest unit", example: "2500000000000000000" }),
    sales: z.number().int().openapi({ description: "Sales in the period (any currency)" }),
    floorPrice: z.string().nullable().openapi({ description: "Cheapest active native-currency listing now, smallest unit" }),
    change: z.number().nullable().openapi({ description: "Volume change versus the previous period as a fraction (0.5 = +50 %); null when the previous period had no volume" }),
  })
  .openapi("TrendingCollection");

export const trending = createRoute({
  method: "get",
  path: "/v1/collections/trending",
  operationId: "getTrendingCollections",
  tags: ["Collections"],
  security: READ_SECURITY,
  middleware: [anyKey] as const,
  summary: "Trending collections",
  description:
    "Collections of one chain (`chainId`, default 1868) ranked by native-currency sale volume in the period (ties: number of sales, then slug), from the sales the service recorded or indexed.",
  request: {
    query: z.strictObject({
      // Volumes of different chains do not compare (testnet ETH is not ETH): one chain's ranking, 1868 unless named (decision 70).
      chainId: ChainIdQuery.default(1868).openapi({ default: 1868 }),
      period: z.enum(["1h", "24h", "7d", "30d"]).default("24h"),
      limit: limitQuery(100, 10),
    }),
  },
  responses: {
    200: jsonContent(z.object({ data: z.array(TrendingEntrySchema), period: z.enum(["1h", "24h", "7d", "30d"]) }).openapi("TrendingPage"), "Trending collections", {
      data: [{ collection: exampleCollection, volume: "2500000000000000000", sales: 42, floorPrice: "10000000000000000", change: 0.5 }],
      period: "24h",
    }),
    ...operationErrors({ auth: "anyKey", input: true }, "unsupported_chain"),
  },
});
