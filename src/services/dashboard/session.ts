// The dashboard's session, CSRF and flash tokens. Nothing here is stored: a session is a signed
// claim `{kind, projectId?, keyId?, sid, exp}` (HMAC-SHA256), the CSRF token is an HMAC of the
// session id, and a flash (the next page's notice, or a key shown once) is AES-GCM sealed to the
// session (a created key's flash is single-use besides: key-display.ts). Every key is derived from ADMIN_TOKEN with HKDF, so rotating the token ends every
// session and voids every outstanding flash; a token too short to resist offline guessing is
// refused (services/auth/admin-token.ts). The credential itself never leaves the sign-in form.
import { adminTokenUnusable, usableAdminToken } from "../auth/admin-token";

export const SESSION_TTL_SECONDS = 60 * 60;
export const FLASH_TTL_SECONDS = 60;

export type Principal = { kind: "admin" } | { kind: "project"; projectId: string; keyId: string };

export type Session = Principal & {
  /** Random id: binds the CSRF token and flashes to this session. */
  sid: string;
  /** Expiry, seconds since the epoch. */
  exp: number;
};

export interface CreatedKeyFlash {
  id: string;
  kind: "api" | "secret";
  key: string;
  prefix: string;
  /** Consumed by the page that shows the key (key-display.ts): a replayed flash shows no key. */
  displayNonce: string;
}

export interface Flash {
  notice?: string;
  createdKey?: CreatedKeyFlash;
}

interface DashboardKeys {
  session: CryptoKey;
  csrf: CryptoKey;
  flash: CryptoKey;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function fromBase64url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
  } catch {
    return null;
  }
}

export const randomToken = (bytes = 16) => base64url(crypto.getRandomValues(new Uint8Array(bytes)));

// One derivation per isolate and token (the token only changes with a redeploy).
let cached: { token: string; keys: Promise<DashboardKeys> } | undefined;

function dashboardKeys(configured: string | undefined): Promise<DashboardKeys> {
  const adminToken = usableAdminToken(configured);
  if (!adminToken) throw adminTokenUnusable("dashboard");
  if (cached?.token !== adminToken) cached = { token: adminToken, keys: deriveKeys(adminToken) };
  return cached.keys;
}

async function deriveKeys(adminToken: string): Promise<DashboardKeys> {
  const base = await crypto.subtle.importKey("raw", encoder.encode(adminToken), "HKDF", false, ["deriveKey"]);
  const derive = (info: string, algorithm: { name: string; hash?: string; length: number }, usages: string[]) =>
    crypto.subtle.deriveKey(
      { name: "HKDF", hash: "SHA-256", salt: encoder.encode("mintyard-dashboard"), info: encoder.encode(info) },
      base,
      algorithm,
      false,
      usages,
    );
  const hmac = { name: "HMAC", hash: "SHA-256", length: 256 };
  const [session, csrf, flash] = await Promise.all([
    derive("session-v1", hmac, ["sign", "verify"]),
    derive("csrf-v1", hmac, ["sign", "verify"]),
    derive("flash-v1", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]),
  ]);
  return { session, csrf, flash };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A fresh session for `principal`: the cookie value and what it says. */
export async function issueSession(adminToken: string | undefined, principal: Principal): Promise<{ token: string; session: Session }> {
  const keys = await dashboardKeys(adminToken);
  const session: Session = { ...principal, sid: randomToken(), exp: nowSeconds() + SESSION_TTL_SECONDS };
  const payload = base64url(encoder.encode(JSON.stringify(session)));
  const signature = new Uint8Array(await crypto.subtle.sign("HMAC", keys.session, encoder.encode(payload)));
  return { token: `${payload}.${base64url(signature)}`, session };
}

/** The session a cookie value proves, or null (malformed, forged, expired). */
export async function readSession(adminToken: string | undefined, token: string | undefined): Promise<Session | null> {
  if (!token || !usableAdminToken(adminToken)) return null;
  const [payload, signature, extra] = token.split(".");
  if (!payload || !signature || extra !== undefined) return null;
  const signatureBytes = fromBase64url(signature);
  const payloadBytes = fromBase64url(payload);
  if (!signatureBytes || !payloadBytes) return null;
  const keys = await dashboardKeys(adminToken);
  // subtle.verify compares in constant time.
  if (!(await crypto.subtle.verify("HMAC", keys.session, signatureBytes, encoder.encode(payload)))) return null;
  let session: Session;
  try {
    session = JSON.parse(decoder.decode(payloadBytes)) as Session;
  } catch {
    return null;
  }
  if (typeof session.exp !== "number" || session.exp <= nowSeconds() || typeof session.sid !== "string") return null;
  return session;
}

/** The per-session CSRF token forms carry. */
export async function csrfToken(adminToken: string | undefined, session: Session): Promise<string> {
  const keys = await dashboardKeys(adminToken);
  return base64url(new Uint8Array(await crypto.subtle.sign("HMAC", keys.csrf, encoder.encode(`csrf:${session.sid}`))));
}

export async function verifyCsrf(adminToken: string | undefined, session: Session, presented: unknown): Promise<boolean> {
  if (typeof presented !== "string") return false;
  const bytes = fromBase64url(presented);
  if (!bytes) return false;
  const keys = await dashboardKeys(adminToken);
  return crypto.subtle.verify("HMAC", keys.csrf, bytes, encoder.encode(`csrf:${session.sid}`));
}

/** Encrypts a flash for the next page of this session only. */
export async function sealFlash(adminToken: string | undefined, session: Session, flash: Flash): Promise<string> {
  const keys = await dashboardKeys(adminToken);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const body = JSON.stringify({ ...flash, exp: nowSeconds() + FLASH_TTL_SECONDS });
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(session.sid) }, keys.flash, encoder.encode(body)),
  );
  const out = new Uint8Array(iv.length + sealed.length);
  out.set(iv);
  out.set(sealed, iv.length);
  return base64url(out);
}

/** The flash, if it was sealed for this session and is still fresh; anything else is ignored. */
export async function openFlash(adminToken: string | undefined, session: Session, sealed: string | undefined): Promise<Flash | null> {
  if (!sealed) return null;
  const bytes = fromBase64url(sealed);
  if (!bytes || bytes.length < 13) return null;
  const keys = await dashboardKeys(adminToken);
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.slice(0, 12), additionalData: encoder.encode(session.sid) },
      keys.flash,
      bytes.slice(12),
    );
    const { exp, ...flash } = JSON.parse(decoder.decode(plain)) as Flash & { exp: number };
    return exp > nowSeconds() ? flash : null;
  } catch {
    return null;
  }
}
