import type { AppOpenAPI } from "./lib/types";

export const API_VERSION = "0.1.0";

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
    description: "Project secret key (`sk_…`). Required for anything that spends or signs with the project wallet.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminToken", {
    type: "http",
    scheme: "bearer",
    description: "The service's ADMIN_TOKEN secret.",
  });
  app.doc31("/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Mintyard API",
      version: API_VERSION,
      description:
        "NFT drops and marketplace at the edge. Errors always use the envelope `{error: {code, message, details?, requestId}}`; every response carries `x-request-id`.",
    },
    servers: [{ url: new URL(c.req.url).origin }],
  }));
}
