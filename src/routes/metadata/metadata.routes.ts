import { createRoute, z } from "@hono/zod-openapi";
import { AddressInput, ChainIdQuery, jsonContent, operationErrors, UintString } from "../../schemas/common";
import { exampleTokenMetadata } from "../../schemas/examples";

export const OpenSeaMetadataSchema = z
  .object({
    name: z.string(),
    description: z.string().optional(),
    image: z.string().optional(),
    animation_url: z.string().optional(),
    external_url: z.string().optional(),
    attributes: z.array(z.record(z.string(), z.unknown())).optional(),
    properties: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("TokenMetadataDocument", { description: "OpenSea metadata standard" });

export const getTokenMetadata = createRoute({
  method: "get",
  path: "/v1/metadata/{chainId}/{contractAddress}/{tokenId}",
  operationId: "getTokenMetadata",
  tags: ["Metadata"],
  security: [],
  summary: "Token metadata (tokenURI target)",
  description:
    "Public (any origin: `Access-Control-Allow-Origin: *`) and cacheable (`Cache-Control: public, max-age=300, stale-while-revalidate=86400`, strong `ETag`; `If-None-Match` gets a 304). " +
    "Served from R2 for `s3` drops (the token's document, else the drop's default) and rendered from D1 for `metadata-api` drops " +
    "(the token's override, else the default). A token minted on chain is served before the indexer has recorded it: the chain's count of the drop's minted tokens (read at most every 5 s) and `ownerOf` are asked, so a token a public claim just minted may be a 404 for up to 5 s; ids the drop cannot have minted cost no chain read. " +
    "The drop's default is sent with `Cache-Control: public, no-cache` (revalidate every time) while a claim or mint of the drop by the project wallet is still pending: its receipt may write the token's own document. " +
    "Tokens not minted yet (or burned) have no metadata: 404, as do `self-hosted` drops and unknown contracts; errors carry `Cache-Control: no-store`.",
  request: {
    params: z.object({
      chainId: ChainIdQuery.openapi({ param: { name: "chainId", in: "path" } }),
      contractAddress: AddressInput.openapi({ param: { name: "contractAddress", in: "path" } }),
      tokenId: UintString.openapi({ param: { name: "tokenId", in: "path" } }),
    }),
  },
  responses: {
    200: jsonContent(OpenSeaMetadataSchema, "Metadata JSON", {
      name: exampleTokenMetadata.name,
      description: exampleTokenMetadata.description,
      image: exampleTokenMetadata.image,
      attributes: exampleTokenMetadata.attributes,
    }),
    304: { description: "Not modified: If-None-Match matched the current ETag" },
    ...operationErrors({ auth: "none", input: true }, "unsupported_chain", "not_found", "chain_unavailable"),
  },
});
