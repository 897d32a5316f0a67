import { createRouter } from "../../lib/create-router";
import { getTokenMetadataHandler } from "./metadata.handlers";
import { getTokenMetadata } from "./metadata.routes";

export const metadataRouter = createRouter().openapi(getTokenMetadata, getTokenMetadataHandler);
