import type { MiddlewareHandler } from "hono";
import { adminTokenUnusable, isAdminToken, usableAdminToken } from "../../services/auth/admin-token";
import { keyCacheTtlSeconds, resolveKey, wellFormedKey, type KeyKind, type ResolvedKey } from "../../services/auth/keys";
import { serviceContext } from "../../services/context";
import { AppError } from "../../lib/errors";
import type { AppBindings } from "../app-types";
import { clientRefused, countUnknownKey, tooManyUnknownKeys, unknownKeyClient } from "../../lib/unknown-keys";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The keys a request presents, the Bearer first; one key sent in both headers counts once. */
function presentedKeys(header: (name: string) => string | undefined): string[] {
  const bearer = BEARER.exec(header("authorization") ?? "")?.[1];
  const apiKey = header("x-api-key")?.trim();
  return [...new Set([bearer, apiKey].filter((key): key is string => Boolean(key)))];
}

/**
 * Authenticates `x-api-key` and/or `Authorization: Bearer` and requires one of `kinds`: no or
 * unknown key → 401, a valid key of the wrong kind → 403. A client that sends its API key on
 * every request and adds the secret key for wallet operations (the seed's header per endpoint)
 * is served by whichever key the endpoint needs; two keys of different projects are refused,
 * since either answer would be a guess.
 */
export function requireKey(...kinds: KeyKind[]): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    const plain = presentedKeys((name) => c.req.header(name));
    if (!plain.length) throw new AppError("unauthorized", "missing credentials: send x-api-key or Authorization: Bearer <secret key>");
    const { env, db } = serviceContext(c.env);
    const store = { db, kv: env.KV, cacheTtlSeconds: keyCacheTtlSeconds(env) };
    const client = unknownKeyClient((name) => c.req.header(name));
    // A client refused for unknown keys still has every key KV knows looked up: only the D1
    // query a key unknown to KV would cost is withheld (decisions 105, 119).
    const reach = clientRefused(client) ? "kv" : "stores";
    const resolved = await Promise.all(plain.map((key) => resolveKey(store, key, reach)));
    const valid = resolved.filter((key): key is ResolvedKey => key !== null);
    if (new Set(valid.map((key) => key.projectId)).size > 1) {
      throw new AppError("unauthorized", "x-api-key and Authorization hold keys of different projects");
    }
    const chosen = valid.find((key) => kinds.includes(key.kind));
    if (!chosen) {
      if (valid.length < resolved.length) {
        if (reach === "kv") throw tooManyUnknownKeys();
        // Counted only when a lookup was made and the request fails for it: a stale second key
        // beside one that serves the request is no guess.
        if (plain.some((key, index) => resolved[index] === null && wellFormedKey(key))) await countUnknownKey(env, client);
        throw new AppError("unauthorized", "invalid or revoked key");
      }
      throw new AppError("forbidden", `this endpoint needs a ${kinds.join(" or ")} key`);
    }
    await enforceRateLimit(env, chosen.keyId);
    c.set("auth", chosen);
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
  if (!token) throw new AppError("unauthorized", "admin token required");
  const adminToken = usableAdminToken(c.env.ADMIN_TOKEN);
  if (!adminToken) throw adminTokenUnusable("admin API");
  if (!(await isAdminToken(adminToken, token))) throw new AppError("unauthorized", "invalid admin token");
  await next();
};
