// The OpenAPI document without a running Worker: scripts/openapi-dump.mjs bundles this entry
// for Node (cloudflare:workers stubbed) to write client/openapi.json. Building the app only
// registers routes; no binding is touched.
import { createApp } from "./app";
import { openApiConfig } from "./openapi";

/** Where `npm run dev` serves the API; the committed document names it as its server. */
export const DEV_ORIGIN = "http://127.0.0.1:8787";

export function buildOpenApiDocument(origin: string = DEV_ORIGIN) {
  return createApp().getOpenAPI31Document(openApiConfig(origin));
}
