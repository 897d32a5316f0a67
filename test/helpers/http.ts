import { SELF } from "cloudflare:test";
import { TEST_ADMIN_TOKEN } from "../fixtures/secrets";
import { scanForSecrets } from "./secret-scan";

export const BASE = "http://mintyard.test";

export interface CallOptions {
  method?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  apiKey?: string;
  secretKey?: string;
  admin?: boolean;
}

export interface CallResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** One request through the Worker's fetch handler (SELF), JSON in and out. */
export async function call<T = any>(path: string, options: CallOptions = {}): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.body !== undefined || options.rawBody !== undefined) headers["content-type"] ??= "application/json";
  if (options.apiKey) headers["x-api-key"] = options.apiKey;
  if (options.secretKey) headers.authorization = `Bearer ${options.secretKey}`;
  if (options.admin) headers.authorization = `Bearer ${TEST_ADMIN_TOKEN}`;
  const response = await SELF.fetch(`${BASE}${path}`, {
    method: options.method ?? (options.body !== undefined || options.rawBody !== undefined ? "POST" : "GET"),
    headers,
    body: options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  const text = await response.text();
  scanForSecrets(`${options.method ?? "request"} ${path} → ${response.status}`, `${[...response.headers].join("\n")}\n${text}`);
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // non-JSON bodies (docs page) stay text
  }
  return { status: response.status, headers: response.headers, body: body as T };
}

/** Asserts the error envelope shape and returns it. */
export function expectEnvelope(result: CallResult, status: number, code: string) {
  if (result.status !== status || result.body?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${result.status} ${JSON.stringify(result.body)}`);
  }
  const { error } = result.body;
  if (typeof error.message !== "string" || typeof error.requestId !== "string") {
    throw new Error(`malformed envelope: ${JSON.stringify(result.body)}`);
  }
  if (result.headers.get("x-request-id") !== error.requestId) {
    throw new Error("x-request-id header does not match the envelope's requestId");
  }
  return error as { code: string; message: string; details?: { path: string; message: string }[]; requestId: string };
}
