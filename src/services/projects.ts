import { desc, eq, sql } from "drizzle-orm";
import { projectWalletAddress } from "../chain/wallet";
import { apiKeys, projects } from "../db/schema";
import { AppError, notFound } from "../lib/errors";
import { settleAllOrThrow } from "../lib/settle";
import { deleteKeyEntry, displayPrefix, forgetKey, generatePlainKey, keyCacheTtlSeconds, recordNewKey, sha256Hex, type KeyKind } from "./auth/keys";
import type { ServiceContext } from "./context";

export interface ProjectView {
  id: string;
  name: string;
  walletAddress: string;
  createdAt: string;
}

export interface KeyView {
  id: string;
  kind: KeyKind;
  prefix: string;
  projectId: string;
  createdAt: string;
  revokedAt: string | null;
  /** The secret key whose dashboard session created this one; null: created with the admin token. */
  createdByKeyId: string | null;
}

/** Index 0 is left unused so that no project shares the mnemonic's first (most reused) account. */
const FIRST_WALLET_INDEX = 1;
const MAX_INDEX_ATTEMPTS = 5;

const toProjectView = (row: typeof projects.$inferSelect): ProjectView => ({
  id: row.id,
  name: row.name,
  walletAddress: row.walletAddress,
  createdAt: row.createdAt.toISOString(),
});

const toKeyView = (row: typeof apiKeys.$inferSelect): KeyView => ({
  id: row.id,
  kind: row.kind,
  prefix: row.prefix,
  projectId: row.projectId,
  createdAt: row.createdAt.toISOString(),
  revokedAt: row.revokedAt?.toISOString() ?? null,
  createdByKeyId: row.createdByKeyId,
});

export async function createProject({ env, db }: ServiceContext, name: string): Promise<ProjectView> {
  // Concurrent creations may pick the same next index; the unique index turns the loser's insert
  // into a no-op, and it retries with a fresh maximum.
  for (let attempt = 0; attempt < MAX_INDEX_ATTEMPTS; attempt++) {
    const { next } = (await db
      .select({ next: sql<number>`coalesce(max(${projects.walletIndex}) + 1, ${FIRST_WALLET_INDEX})` })
      .from(projects)
      .get())!;
    const now = new Date();
    const inserted = await db
      .insert(projects)
      .values({
        id: crypto.randomUUID(),
        name,
        walletIndex: next,
        walletAddress: projectWalletAddress(env.WALLET_MNEMONIC, next),
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (inserted[0]) return toProjectView(inserted[0]);
  }
  throw new Error("could not allocate a wallet index");
}

export async function listProjects({ db }: ServiceContext): Promise<ProjectView[]> {
  const rows = await db.select().from(projects).orderBy(desc(projects.createdAt)).all();
  return rows.map(toProjectView);
}

// A project's id, wallet index and wallet address never change, so the row is cached per
// isolate (it is read on every wallet request).
const projectRows = new Map<string, typeof projects.$inferSelect>();

export async function getProjectRow({ db }: ServiceContext, projectId: string) {
  const cached = projectRows.get(projectId);
  if (cached) return cached;
  const row = await db.select().from(projects).where(eq(projects.id, projectId)).get();
  if (!row) throw notFound("project");
  if (projectRows.size > 10_000) projectRows.clear();
  projectRows.set(projectId, row);
  return row;
}

/**
 * `createdByKeyId`: the secret key of the dashboard session creating it (decision 110); null for
 * the admin token. With a creator, the insert requires it to be a live secret key of the project
 * in the same statement: a creation racing its creator's revocation either lands first, and is in
 * the tree the revocation walks, or is refused.
 */
export async function createKey(ctx: ServiceContext, projectId: string, kind: KeyKind, createdByKeyId: string | null = null) {
  await getProjectRow(ctx, projectId);
  const key = generatePlainKey(kind);
  const id = crypto.randomUUID();
  const createdAt = Date.now();
  const keyHash = await sha256Hex(key);
  const inserted = await ctx.env.DB.prepare(
    `insert into api_keys (id, project_id, kind, key_hash, prefix, created_at, created_by_key_id)
     select ?1, ?2, ?3, ?4, ?5, ?6, ?7
     where ?7 is null or exists (select 1 from api_keys where id = ?7 and project_id = ?2 and kind = 'secret' and revoked_at is null)`,
  )
    .bind(id, projectId, kind, keyHash, displayPrefix(key), createdAt, createdByKeyId)
    .run();
  if (!inserted.meta.changes) throw new AppError("unauthorized", "the secret key this session was opened with has been revoked; sign in again");
  await recordNewKey(ctx.env.KV, keyHash, { keyId: id, projectId, kind });
  return { id, kind, key, prefix: displayPrefix(key), projectId, createdAt: new Date(createdAt).toISOString() };
}

export async function listKeys(ctx: ServiceContext, projectId: string): Promise<KeyView[]> {
  await getProjectRow(ctx, projectId);
  const rows = await ctx.db.select().from(apiKeys).where(eq(apiKeys.projectId, projectId)).orderBy(desc(apiKeys.createdAt)).all();
  return rows.map(toKeyView);
}

/**
 * `tree`: the key ?1 and every key of its project created by a key in it (on
 * api_keys_created_by_idx). createKey already requires a creator of the same project; the walk
 * checks it again, so no row written otherwise can carry a revocation across projects.
 */
const KEY_TREE_SQL = `with recursive tree(id) as (select ?1 union
  select k.id from api_keys k join tree t on k.created_by_key_id = t.id where k.project_id = (select project_id from api_keys where id = ?1))`;

/**
 * Revokes in D1 first, then drops the KV entries so no cached copy outlives the revocation. With
 * `withDescendants`, also every key the key's dashboard sessions created, and theirs (decision
 * 110), in the same statement. Returns the ids this call revoked (none when already revoked).
 */
export async function revokeKey({ db, env }: ServiceContext, keyId: string, options: { withDescendants?: boolean } = {}): Promise<string[]> {
  if (!(await db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.id, keyId)).get())) throw notFound("key");
  const tree = options.withDescendants ? KEY_TREE_SQL : "with tree(id) as (select ?1)";
  const now = Date.now();
  const [revoked, cached] = await env.DB.batch<{ id?: string; key_hash?: string }>([
    env.DB.prepare(`${tree} update api_keys set revoked_at = ?2 where id in (select id from tree) and revoked_at is null returning id`).bind(keyId, now),
    // Every key of the tree that a cache may still hold: revoked now, or recently enough that an
    // earlier revocation's failed KV delete left an entry that has not expired.
    env.DB.prepare(`${tree} select key_hash from api_keys where id in (select id from tree) and revoked_at > ?2`).bind(keyId, now - keyCacheTtlSeconds(env) * 1000),
  ]);
  // Each key is forgotten whatever happens to the others; a failed KV delete still fails the
  // request (the entry lives until its TTL, docs/security.md), after every other was tried.
  await settleAllOrThrow(cached!.results.map((key) => forgetEverywhere(env.KV, key.key_hash!)));
  return revoked!.results.map((key) => key.id!);
}

// Forgotten in this isolate before the KV delete (which may fail after its retries) and again
// after it (a resolve that read the live KV entry meanwhile must not keep it).
async function forgetEverywhere(kv: KVNamespace, keyHash: string) {
  forgetKey(keyHash);
  try {
    await deleteKeyEntry(kv, keyHash);
  } finally {
    forgetKey(keyHash);
  }
}
