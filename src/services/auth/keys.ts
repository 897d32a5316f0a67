// API and secret keys: generated here, stored only as SHA-256, resolved through a KV cache.
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { apiKeys } from "../../db/schema";
import { IsolateCache } from "../../lib/isolate-cache";
import { logWarn } from "../../lib/log";

export type KeyKind = "api" | "secret";

export const KEY_PREFIX: Record<KeyKind, string> = { api: "ak_", secret: "sk_" };
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_RANDOM_CHARS = 40;
/** Characters of the plain key kept for display (`sk_` + 6). */
const DISPLAY_PREFIX_LENGTH = 9;

export interface ResolvedKey {
  keyId: string;
  projectId: string;
  kind: KeyKind;
}

/**
 * KV value for a key hash: every live key has one, written when the key is created and again
 * after each D1 lookup, with no expiry, so KV alone tells a key the service issued from a guess
 * (lib/unknown-keys.ts). It answers for the key without D1 until `trustedUntil` (ms since the
 * epoch; 0 when written at creation). Revocation deletes it, so `revoked` is only a guard.
 */
interface KeyEntry extends ResolvedKey {
  revoked: boolean;
  trustedUntil?: number;
}

/**
 * How far a lookup may go. "stores": KV, then D1 when KV's entry is missing or no longer trusted.
 * "kv": a key KV holds no entry for is not looked up in D1 (a client refused for unknown keys:
 * lib/unknown-keys.ts); a key it holds one for still is.
 */
export type KeyLookupReach = "stores" | "kv";

export const keyCacheKey = (keyHash: string) => `apikey:${keyHash}`;

/** `ak_`/`sk_` + 40 base62 characters (~238 bits), rejection-sampled so every char is uniform. */
export function generatePlainKey(kind: KeyKind): string {
  let out = "";
  while (out.length < KEY_RANDOM_CHARS) {
    for (const byte of crypto.getRandomValues(new Uint8Array(64))) {
      if (byte < 248 && out.length < KEY_RANDOM_CHARS) out += BASE62[byte % 62];
    }
  }
  return KEY_PREFIX[kind] + out;
}

export const displayPrefix = (plainKey: string) => plainKey.slice(0, DISPLAY_PREFIX_LENGTH);

export async function sha256Hex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** Constant-time equality of two strings of hex digests (lengths are public). */
export function timingSafeEqualHex(a: string, b: string): boolean {
  const left = new TextEncoder().encode(a);
  const right = new TextEncoder().encode(b);
  if (left.byteLength !== right.byteLength) return false;
  return crypto.subtle.timingSafeEqual(left, right);
}

const PLAIN_KEY_SHAPE = /^(ak|sk)_[0-9A-Za-z]{32,64}$/;

interface KeyStore {
  db: Db;
  kv: KVNamespace;
  /** How long a KV entry answers without D1: keyCacheTtlSeconds(env). */
  cacheTtlSeconds: number;
}

/** How long a KV entry answers for its key without D1 (at least 60 s); a revocation re-deletes entries of keys revoked this recently. */
export const keyCacheTtlSeconds = (env: Pick<Env, "KEY_CACHE_TTL_SECONDS">) => Math.max(60, Number(env.KEY_CACHE_TTL_SECONDS) || 60);

// A few seconds of isolate memory in front of KV: every request authenticates, and a KV read
// costs as much as a D1 query locally. Revocation clears this isolate's copy at once; other
// isolates forget it within MEMORY_TTL_MS (KV itself is eventually consistent for longer).
const MEMORY_TTL_MS = 5_000;
const remembered = new IsolateCache<ResolvedKey>(MEMORY_TTL_MS);
// Bumped by every revocation in this isolate. A resolve that was reading the stores while one ran
// may hold what it read before it, so it does not put that into memory (revocations are rare).
let revocations = 0;

export const forgetKey = (keyHash: string) => {
  revocations++;
  remembered.delete(keyHash);
};

/** Whether `plainKey` has the shape of a key: anything else is refused without a lookup. */
export const wellFormedKey = (plainKey: string) => PLAIN_KEY_SHAPE.test(plainKey);

/** The key's project and kind, or null when the key is unknown, malformed or revoked (or unknown to KV, with reach "kv"). */
export async function resolveKey(store: KeyStore, plainKey: string, reach: KeyLookupReach = "stores"): Promise<ResolvedKey | null> {
  if (!PLAIN_KEY_SHAPE.test(plainKey)) return null;
  const keyHash = await sha256Hex(plainKey);
  const inMemory = remembered.get(keyHash);
  if (inMemory) return inMemory;
  const revocationsBefore = revocations;
  const resolved = await resolveFromStores(store, keyHash, reach);
  if (resolved && revocations === revocationsBefore) remembered.set(keyHash, resolved);
  return resolved;
}

/**
 * Writes a new key's KV entry, so that KV knows it before its first use (a client refused for
 * unknown keys is still served with it). Not trusted yet: its first lookup reads D1, which a
 * revocation racing this write has already updated. A failed write is logged: the key's first
 * lookup from a client not refused writes the entry.
 */
export async function recordNewKey(kv: KVNamespace, keyHash: string, key: ResolvedKey): Promise<void> {
  const entry: KeyEntry = { ...key, revoked: false, trustedUntil: 0 };
  await kv.put(keyCacheKey(keyHash), JSON.stringify(entry)).catch((error: unknown) => logWarn({}, { where: "auth.recordNewKey", keyId: key.keyId }, error));
}

async function resolveFromStores(store: KeyStore, keyHash: string, reach: KeyLookupReach): Promise<ResolvedKey | null> {
  const known = await store.kv.get<KeyEntry>(keyCacheKey(keyHash), "json");
  if (known?.revoked) return null;
  if (known && (known.trustedUntil ?? 0) > Date.now()) return { keyId: known.keyId, projectId: known.projectId, kind: known.kind };
  if (!known && reach === "kv") return null;

  const row = await store.db
    .select({ id: apiKeys.id, projectId: apiKeys.projectId, kind: apiKeys.kind, keyHash: apiKeys.keyHash })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
    .get();
  // The row was found by its hash; the explicit constant-time check keeps the comparison
  // itself free of early exits should the lookup ever become a prefix match.
  if (!row || !timingSafeEqualHex(row.keyHash, keyHash)) {
    // An entry left by a revocation whose deletes all failed: without it, KV no longer vouches
    // for the key to a refused client. One attempt; the next lookup tries again.
    if (known) await store.kv.delete(keyCacheKey(keyHash)).catch((error: unknown) => logWarn({}, { where: "auth.dropRevokedEntry" }, error));
    return null;
  }

  const resolved: ResolvedKey = { keyId: row.id, projectId: row.projectId, kind: row.kind };
  const entry: KeyEntry = { ...resolved, revoked: false, trustedUntil: Date.now() + store.cacheTtlSeconds * 1000 };
  // Best effort: Workers KV answers a second write to one key within a second with an error, and
  // a burst of first requests with a new key all write it. D1 has answered already.
  await store.kv
    .put(keyCacheKey(keyHash), JSON.stringify(entry))
    .catch((error: unknown) => logWarn({}, { where: "auth.cacheKey", keyId: row.id }, error));
  // A revocation between the read above and this put deleted the entry before the put wrote it
  // back. Revocation writes D1 before deleting KV, so reading D1 again after the put either sees
  // it (and this resolve removes its own entry) or the revocation's delete comes after the put.
  if (await isRevoked(store.db, row.id)) {
    // Even after a failed put: a write that errored may still have landed. Refused either way.
    await deleteKeyEntry(store.kv, keyHash).catch((error: unknown) => logWarn({}, { where: "auth.resolveKey", keyId: row.id }, error));
    return null;
  }
  return resolved;
}

const KV_WRITE_RETRY_MS = [1_000, 2_000];

/**
 * Deletes a key's KV entry, for a revocation or a resolve that raced one: a live entry left behind
 * says "live" to every isolate until its `trustedUntil`, so a delete KV refuses (its one-write-a-second
 * limit per key) is tried again 1 s and 2 s later before this throws.
 */
export async function deleteKeyEntry(kv: KVNamespace, keyHash: string): Promise<void> {
  for (const delayMs of [0, ...KV_WRITE_RETRY_MS]) {
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    try {
      await kv.delete(keyCacheKey(keyHash));
      return;
    } catch (error) {
      logWarn({}, { where: "auth.deleteKeyEntry" }, error);
    }
  }
  throw new Error("KV refused to delete a revoked key's cache entry three times");
}

async function isRevoked(db: Db, keyId: string): Promise<boolean> {
  const row = await db.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, keyId)).get();
  return !row || row.revokedAt !== null;
}
