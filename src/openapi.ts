import { ERROR_CODES } from "./lib/errors";
import type { AppOpenAPI } from "./routes/app-types";
import { errorExample } from "./schemas/common";

export const API_VERSION = "0.1.0";

/** The document's top-level fields; `origin` becomes its only server. */
export function openApiConfig(origin: string) {
  return {
    openapi: "3.1.0",
    info: {
      title: "Mintyard API",
      version: API_VERSION,
      description:
        "NFT drops and marketplace at the edge. Errors always use the envelope `{error: {code, message, details?, requestId}}`; every response carries `x-request-id`.",
    },
    servers: [{ url: origin }],
  };
}

export function registerOpenApi(app: AppOpenAPI) {
  app.openAPIRegistry.registerComponent("securitySchemes", "ApiKey", {
    type: "apiKey",
    in: "header",
    name: "x-api-key",
    description: "Project API key (`ak_…`) or secret key. Reads and order submission.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "SecretKey", {
    type: "http",
    scheme: "bearer",
    description: "Project secret key (`sk_…`). Required for anything that spends or signs with the project wallet. May be sent beside `x-api-key`: the key the endpoint needs is used; keys of two different projects are a 401.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminToken", {
    type: "http",
    scheme: "bearer",
    description: "The service's ADMIN_TOKEN secret (at least 32 characters; with a shorter or no token the admin API answers 401 naming the setting).",
  });
  // Referenced by every documented error response (src/schemas/common.ts errorResponses).
  for (const code of ERROR_CODES) app.openAPIRegistry.registerComponent("examples", `error.${code}`, errorExample(code));
  app.doc31("/openapi.json", (c) => openApiConfig(new URL(c.req.url).origin));
}
