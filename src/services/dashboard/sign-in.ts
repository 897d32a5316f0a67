// Who may use the dashboard: the admin (ADMIN_TOKEN) for every project, a project's secret key
// for that project only. An API key is refused: it cannot manage keys through the API either.
import { and, eq, isNull } from "drizzle-orm";
import { apiKeys } from "../../db/schema";
import { AppError, notFound } from "../../lib/errors";
import { adminTokenUnusable, isAdminToken, usableAdminToken } from "../auth/admin-token";
import { keyCacheTtlSeconds, resolveKey, type KeyLookupReach } from "../auth/keys";
import type { ServiceContext } from "../context";
import type { Principal, Session } from "./session";

const INVALID = "invalid admin token or secret key";

/** `reach`: how far a key may be looked up (services/auth/keys.ts); the admin token is compared whatever it is. */
export async function signIn(ctx: ServiceContext, credential: unknown, reach: KeyLookupReach = "stores"): Promise<Principal> {
  const plain = typeof credential === "string" ? credential.trim() : "";
  if (!plain) throw new AppError("unauthorized", "enter the admin token or a project's secret key");
  // Refused before any credential is checked: no session may be signed with keys from a weak token.
  const adminToken = usableAdminToken(ctx.env.ADMIN_TOKEN);
  if (!adminToken) throw adminTokenUnusable("dashboard");
  if (await isAdminToken(adminToken, plain)) return { kind: "admin" };
  const resolved = await resolveKey(
    { db: ctx.db, kv: ctx.env.KV, cacheTtlSeconds: keyCacheTtlSeconds(ctx.env) },
    plain,
    reach,
  );
  if (!resolved) throw new AppError("unauthorized", INVALID);
  if (resolved.kind !== "secret") throw new AppError("forbidden", "an API key cannot sign in to the dashboard: use the project's secret key");
  return { kind: "project", projectId: resolved.projectId, keyId: resolved.keyId };
}

const endedSessionKey = (sid: string) => `dashboard:ended:${sid}`;

/** Sign-out: the cookie is cleared, and its session is refused even if a copy of it is replayed. */
export async function endSession({ env }: ServiceContext, session: Session): Promise<void> {
  const remaining = session.exp - Math.floor(Date.now() / 1000);
  if (remaining <= 0) return;
  // KV's minimum TTL is 60 s; the entry only has to outlive the session.
  await env.KV.put(endedSessionKey(session.sid), "1", { expirationTtl: Math.max(60, remaining) });
}

/**
 * Whether a signed session still stands: not signed out, and for a project session, the secret
 * key it was opened with is not revoked (checked in D1, not the KV cache, so it takes effect at once).
 */
export async function sessionStillValid({ db, env }: ServiceContext, session: Session): Promise<boolean> {
  const [ended, keyRow] = await Promise.all([
    env.KV.get(endedSessionKey(session.sid)),
    session.kind === "admin"
      ? Promise.resolve({ id: "admin" })
      : db
          .select({ id: apiKeys.id })
          .from(apiKeys)
          .where(and(eq(apiKeys.id, session.keyId), eq(apiKeys.projectId, session.projectId), eq(apiKeys.kind, "secret"), isNull(apiKeys.revokedAt)))
          .get(),
  ]);
  return ended === null && Boolean(keyRow);
}

/** Another project is indistinguishable from a missing one (DESIGN §3, tenancy). */
export function assertProjectAccess(principal: Principal, projectId: string): void {
  if (principal.kind === "project" && principal.projectId !== projectId) throw notFound("project");
}

export function assertAdmin(principal: Principal, action: string): void {
  if (principal.kind !== "admin") throw new AppError("forbidden", `only the admin can ${action}`);
}
