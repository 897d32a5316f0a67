import type { MiddlewareHandler } from "hono";
import { resolveKey, sha256Hex, timingSafeEqualHex, type KeyKind } from "../services/auth/keys";
import { serviceContext } from "../services/context";
import { AppError } from "./errors";
import type { AppBindings } from "./types";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function presentedKey(header: (name: string) => string | undefined): string | undefined {
  const apiKey = header("x-api-key")?.trim();
  if (apiKey) return apiKey;
  return BEARER.exec(header("authorization") ?? "")?.[1];
}

/**
 * Authenticates `x-api-key` or `Authorization: Bearer` and requires one of `kinds`:
 * no or unknown key → 401, a valid key of the wrong kind → 403.
 */
export function requireKey(...kinds: KeyKind[]): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    const plain = presentedKey((name) => c.req.header(name));
    if (!plain) throw new AppError("unauthorized", "missing credentials: send x-api-key or Authorization: Bearer <secret key>");
    const { env, db } = serviceContext(c.env);
    const resolved = await resolveKey({ db, kv: env.KV, cacheTtlSeconds: Number(env.KEY_CACHE_TTL_SECONDS) || 60 }, plain);
    if (!resolved) throw new AppError("unauthorized", "invalid or revoked key");
    if (!kinds.includes(resolved.kind)) {
      throw new AppError("forbidden", `this endpoint needs a ${kinds.join(" or ")} key`);
    }
    await enforceRateLimit(env, resolved.keyId);
    c.set("auth", resolved);
    await next();
  };
}

/** Per key (the binding counts by key id, so revoking a key does not reset another's budget). */
async function enforceRateLimit(env: Env, keyId: string) {
  const { success } = await env.RATE_LIMITER.limit({ key: keyId });
  if (!success) {
    const retryAfter = env.RATE_LIMIT_RETRY_AFTER_SECONDS || "60";
    throw new AppError("rate_limited", `rate limit exceeded for this key; retry in ${retryAfter} s`, undefined, { "Retry-After": retryAfter });
  }
}

export const anyKey = requireKey("api", "secret");
export const secretKey = requireKey("secret");

/** `Authorization: Bearer <ADMIN_TOKEN>`, compared as SHA-256 digests in constant time. */
export const requireAdmin: MiddlewareHandler<AppBindings> = async (c, next) => {
  const token = BEARER.exec(c.req.header("authorization") ?? "")?.[1];
  if (!token || !c.env.ADMIN_TOKEN) throw new AppError("unauthorized", "admin token required");
  const [given, expected] = await Promise.all([sha256Hex(token), sha256Hex(c.env.ADMIN_TOKEN)]);
  if (!timingSafeEqualHex(given, expected)) throw new AppError("unauthorized", "invalid admin token");
  await next();
};
