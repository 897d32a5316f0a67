import { cors } from "hono/cors";
import { createRouter } from "../../lib/create-router";
import { getTokenMetadataHandler } from "./metadata.handlers";
import { getTokenMetadata } from "./metadata.routes";

// tokenURI targets are fetched by browsers too (a mint page showing the new token): public,
// credential-free, so any origin may read them, as IPFS gateways and metadata hosts allow.
const router = createRouter();
router.use("/v1/metadata/*", cors({ origin: "*", allowMethods: ["GET", "HEAD", "OPTIONS"] }));
export const metadataRouter = router.openapi(getTokenMetadata, getTokenMetadataHandler);
