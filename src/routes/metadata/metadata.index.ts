import { cors } from "hono/cors";
import { createRouter } from "../create-router";
import { getTokenMetadataHandler } from "./metadata.handlers";
import { getTokenMetadata } from "./metadata.routes";

// tokenURI targets are fetched by browsers too (a mint page showing the new token): public,
// credential-free, so any origin may read them, as IPFS gateways and metadata hosts allow.
const router = createRouter();
router.use("/v1/metadata/*", cors({ origin: "*", allowMethods: ["GET", "HEAD", "OPTIONS"] }));
// Until the handler has a good answer, nothing may keep one: a 404 (or a 400) for a token minted a
// second later would otherwise be kept by any cache applying heuristic freshness (RFC 9111 §4.2.2).
router.use("/v1/metadata/*", async (c, next) => {
  c.header("Cache-Control", "no-store");
  await next();
});
export const metadataRouter = router.openapi(getTokenMetadata, getTokenMetadataHandler);
