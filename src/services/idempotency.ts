// Idempotency-Key records (DESIGN §3). The (project, key) primary key is the lock: whoever
// inserts the `in_progress` row runs the request; a concurrent duplicate finds the row and is
// turned away, so it can never send a second transaction.
import { and, eq, like, lt } from "drizzle-orm";
import { idempotencyKeys } from "../db/schema";
import { AppError } from "../lib/errors";
import type { ServiceContext } from "./context";
import { IN_R2_PATTERN, loadResponseBody, objectOf, storeResponseBody } from "./idempotency-body";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type IdempotencyStart =
  | { kind: "run" }
  | { kind: "replay"; status: number; body: string; headers: Record<string, string> };

export async function startIdempotentRequest(
  { db, env }: ServiceContext,
  projectId: string,
  key: string,
  requestHash: string,
): Promise<IdempotencyStart> {
  for (let attempt = 0; attempt < 2; attempt++) {
    const now = Date.now();
    const inserted = await db
      .insert(idempotencyKeys)
      .values({ projectId, key, requestHash, status: "in_progress", createdAt: new Date(now), expiresAt: new Date(now + IDEMPOTENCY_TTL_MS) })
      .onConflictDoNothing()
      .returning({ key: idempotencyKeys.key });
    if (inserted.length) return { kind: "run" };

    const existing = await db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.projectId, projectId), eq(idempotencyKeys.key, key)))
      .get();
    if (!existing) continue;
    if (existing.expiresAt.getTime() <= now) {
      const object = objectOf(existing.responseBody);
      if (object) await env.METADATA.delete(object);
      await db
        .delete(idempotencyKeys)
        .where(and(eq(idempotencyKeys.projectId, projectId), eq(idempotencyKeys.key, key), lt(idempotencyKeys.expiresAt, new Date(now + 1))));
      continue;
    }
    if (existing.requestHash !== requestHash) {
      throw new AppError("idempotency_conflict", "this Idempotency-Key was used with a different request", [
        { path: "header.idempotency-key", message: "already used for another method, path or body" },
      ]);
    }
    if (existing.status === "in_progress") {
      throw new AppError("conflict", "a request with this Idempotency-Key is still in progress; retry later", [
        { path: "header.idempotency-key", message: "in progress" },
      ]);
    }
    return {
      kind: "replay",
      status: existing.responseStatus ?? 200,
      body: await loadResponseBody(env.METADATA, existing.responseBody ?? ""),
      headers: existing.responseHeaders ? (JSON.parse(existing.responseHeaders) as Record<string, string>) : {},
    };
  }
  throw new AppError("conflict", "could not record the Idempotency-Key; retry");
}

export async function completeIdempotentRequest(
  { db, env }: ServiceContext,
  projectId: string,
  key: string,
  response: { status: number; body: string; headers: Record<string, string> },
) {
  const body = await storeResponseBody(env.METADATA, projectId, key, response.body);
  await db
    .update(idempotencyKeys)
    .set({ status: "completed", responseStatus: response.status, responseBody: body, responseHeaders: JSON.stringify(response.headers) })
    .where(and(eq(idempotencyKeys.projectId, projectId), eq(idempotencyKeys.key, key)));
}

/** The request failed in a way a retry may fix (5xx, 429): forget the key so the retry runs. */
export async function abandonIdempotentRequest({ db }: ServiceContext, projectId: string, key: string) {
  await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.projectId, projectId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.status, "in_progress")));
}

const OBJECTS_PER_SWEEP = 1_000; // R2 deletes at most 1,000 keys per call

/**
 * Deletes records past their 24 h whose body is in R2, object first (the sweep deletes the
 * others, and never these: a row deleted before its object would leave the object for good).
 */
export async function deleteExpiredStoredResponses({ db, env }: ServiceContext, nowMs: number): Promise<void> {
  const expired = and(lt(idempotencyKeys.expiresAt, new Date(nowMs + 1)), like(idempotencyKeys.responseBody, IN_R2_PATTERN));
  const rows = await db
    .select({ projectId: idempotencyKeys.projectId, key: idempotencyKeys.key, responseBody: idempotencyKeys.responseBody })
    .from(idempotencyKeys)
    .where(expired)
    .limit(OBJECTS_PER_SWEEP);
  if (!rows.length) return;
  await env.METADATA.delete(rows.map((row) => objectOf(row.responseBody)!));
  const [first, ...rest] = rows.map((row) => db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.projectId, row.projectId), eq(idempotencyKeys.key, row.key), expired)));
  await db.batch([first!, ...rest]);
}
