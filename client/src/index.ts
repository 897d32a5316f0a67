// @mintyard/client: a typed client for the Mintyard API. The types come from the service's
// OpenAPI document (client/openapi.json → ./schema.d.ts, `npm run client:generate`); requests
// go through openapi-fetch, so paths, parameters, bodies and responses are all checked by tsc.
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths } from "./schema";
import { OPERATION_SECURITY, type SecurityScheme } from "./security";

export type { components, operations, paths } from "./schema";
export { OPERATION_SECURITY, type SecurityScheme } from "./security";
export { parseWebhookSignatureHeader, signWebhookPayload, verifyWebhookSignature, type VerifyWebhookSignatureOptions } from "./webhooks";

export interface MintyardClientOptions {
  /** The service's origin, e.g. `https://api.mintyard.example` or `http://127.0.0.1:8787`. */
  baseUrl: string;
  /** Project API key (`ak_…`): reads and order submission. */
  apiKey?: string;
  /** Project secret key (`sk_…`): everything, including spending with the project wallet. */
  secretKey?: string;
  /** The service's ADMIN_TOKEN, for `/v1/admin/*`. */
  adminToken?: string;
  /** Replaces `globalThis.fetch` (a service binding, a test's `SELF.fetch`, a proxy…). */
  fetch?: (input: Request, init?: RequestInit) => Promise<Response>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

export type MintyardClient = Client<paths>;

/**
 * The credential for one operation, from the security schemes it accepts: the admin token for
 * admin operations; otherwise the least-privileged project key it takes (API key before secret
 * key). An operation none of the given keys fits still gets a project key, so the service
 * answers 403 (wrong kind of key) rather than 401; public operations get none.
 */
export function credentialHeader(schemes: readonly SecurityScheme[], options: Pick<MintyardClientOptions, "apiKey" | "secretKey" | "adminToken">): [string, string] | undefined {
  if (schemes.includes("AdminToken")) return options.adminToken ? ["authorization", `Bearer ${options.adminToken}`] : undefined;
  if (schemes.length === 0) return undefined;
  if (schemes.includes("ApiKey") && options.apiKey) return ["x-api-key", options.apiKey];
  if (schemes.includes("SecretKey") && options.secretKey) return ["authorization", `Bearer ${options.secretKey}`];
  if (options.apiKey) return ["x-api-key", options.apiKey];
  if (options.secretKey) return ["authorization", `Bearer ${options.secretKey}`];
  return undefined;
}

function credentials(options: MintyardClientOptions): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      // A credential set on the call itself wins.
      if (request.headers.has("authorization") || request.headers.has("x-api-key")) return undefined;
      const header = credentialHeader(OPERATION_SECURITY[`${request.method} ${schemaPath}`] ?? [], options);
      if (header) request.headers.set(...header);
      return request;
    },
  };
}

/** A typed client: `client.GET("/v1/drops/{id}", { params: { path: { id } } })` → `{ data, error, response }`. */
export function createMintyardClient(options: MintyardClientOptions): MintyardClient {
  const customFetch = options.fetch;
  const client = createClient<paths>({
    baseUrl: options.baseUrl,
    ...(customFetch ? { fetch: (request: Request) => customFetch(request) } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  });
  client.use(credentials(options));
  return client;
}
