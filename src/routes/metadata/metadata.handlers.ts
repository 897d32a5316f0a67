import type { AppRouteHandler } from "../app-types";
import { serviceContext } from "../../services/context";
import { renderTokenMetadata } from "../../services/metadata/token-metadata";
import type { getTokenMetadata } from "./metadata.routes";

// Marketplaces re-fetch metadata often; five minutes fresh, a day stale while revalidating.
const CACHE_CONTROL = "public, max-age=300, stale-while-revalidate=86400";
// A default that a pending claim may still replace with the token's own document: revalidate every time.
const PROVISIONAL_CACHE_CONTROL = "public, no-cache";

/** If-None-Match uses the weak comparison (RFC 9110 §13.1.2): a W/ prefix still matches. */
function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((candidate) => {
    const tag = candidate.trim();
    return tag === "*" || tag.replace(/^W\//, "") === etag;
  });
}

export const getTokenMetadataHandler: AppRouteHandler<typeof getTokenMetadata> = async (c) => {
  const { chainId, contractAddress, tokenId } = c.req.valid("param");
  const { document, etag, provisional } = await renderTokenMetadata(serviceContext(c.env), chainId, contractAddress, tokenId);
  c.header("Cache-Control", provisional ? PROVISIONAL_CACHE_CONTROL : CACHE_CONTROL);
  c.header("ETag", etag);
  if (matchesIfNoneMatch(c.req.header("if-none-match"), etag)) return c.body(null, 304);
  return c.json(document, 200);
};
