// Idempotency-Key records (DESIGN §3). The (project, key) primary key is the lock: whoever
// inserts the `in_progress` row runs the request; a concurrent duplicate finds the row and is
// turned away, so it can never send a second transaction.
import { and, eq, lt } from "drizzle-orm";
import { idempotencyKeys } from "../db/schema";
import { AppError } from "../lib/errors";
import type { ServiceContext } from "./context";
import { packResponseBody, unpackResponseBody } from "./idempotency-body";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type IdempotencyStart =
  | { kind: "run" }
  | { kind: "replay"; status: number; body: string; headers: Record<string, string> };

export async function startIdempotentRequest(
  { db }: ServiceContext,
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
      body: await unpackResponseBody(existing.responseBody ?? ""),
      headers: existing.responseHeaders ? (JSON.parse(existing.responseHeaders) as Record<string, string>) : {},
    };
  }
  throw new AppError("conflict", "could not record the Idempotency-Key; retry");
}

export async function completeIdempotentRequest(
  { db }: ServiceContext,
  projectId: string,
  key: string,
  response: { status: number; body: string; headers: Record<string, string> },
) {
  const body = await packResponseBody(response.body);
  // The key then stays in progress: a retry is turned away rather than run a second time.
  if (body === null) throw new Error(`the response (${response.body.length} characters) does not fit an idempotency record even compressed`);
  await db
    .update(idempotencyKeys)
    .set({ status: "completed", responseStatus: response.status, responseBody: body, responseHeaders: JSON.stringify(response.headers) })
    .where(and(eq(idempotencyKeys.projectId, projectId), eq(idempotencyKeys.key, key)));
}

/** The request failed in a way a retry may fix (5xx, 429): forget the key so the retry runs. */
export async function abandonIdempotentRequest({ db }: ServiceContext, projectId: string, key: string) {
  await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.projectId, projectId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.status, "in_progress")));
}
