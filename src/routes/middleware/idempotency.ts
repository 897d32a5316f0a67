import type { Context, MiddlewareHandler } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { sha256Hex } from "../../services/auth/keys";
import { serviceContext } from "../../services/context";
import { abandonIdempotentRequest, completeIdempotentRequest, startIdempotentRequest } from "../../services/idempotency";
import { OutcomeUnknownError, validationError } from "../../lib/errors";
import { logError } from "../../lib/log";
import type { AppBindings } from "../app-types";

const MAX_KEY_LENGTH = 200;
const REPLAYED_HEADERS = ["content-type", "deprecation", "link"];

/**
 * Admin requests have no project; their keys are kept under this scope in `project_id`, which
 * no project can have (project ids are UUIDs). Decision 31.
 */
export const ADMIN_IDEMPOTENCY_SCOPE = "admin";

/**
 * How a response holding a secret shown once is kept for replays: stored without the secret,
 * which the replay derives again (decision 31).
 */
export interface StoredResponseCodec {
  store(body: string, status: number): string;
  replay(stored: string, status: number, env: Env): Promise<string>;
}

/**
 * `Idempotency-Key` for POSTs that sign or store (runs after auth, before validation): the
 * first response (2xx or 4xx) is stored and replayed for 24 h with `Idempotent-Replayed: true`.
 * Keys are scoped per `scopeOf` (the project, or the admin scope), as Stripe scopes them per
 * account rather than per key. The stored response is plain text in D1, so only for responses
 * whose secrets the project can read again anyway (a deploy's `blindboxKey` is also on its
 * GET /v1/drops/{id}) or that `codec` keeps without their secret (webhook registration); key
 * creation, whose plain key cannot be derived again, is exempt (decision 31).
 */
const idempotencyScopedBy = (scopeOf: (c: Context<AppBindings>) => string, codec?: StoredResponseCodec): MiddlewareHandler<AppBindings> => async (c, next) => {
  const key = c.req.header("idempotency-key");
  if (key === undefined) return next();
  if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw validationError("header.idempotency-key", `must be 1 to ${MAX_KEY_LENGTH} characters`);
  }
  const projectId = scopeOf(c);
  const ctx = serviceContext(c.env);
  const body = await c.req.text();
  const requestHash = await sha256Hex(`${c.req.method} ${new URL(c.req.url).pathname}\n${body}`);

  const start = await startIdempotentRequest(ctx, projectId, key, requestHash);
  if (start.kind === "replay") {
    for (const [name, value] of Object.entries(start.headers)) c.header(name, value);
    c.header("idempotent-replayed", "true");
    const body = codec ? await codec.replay(start.body, start.status, c.env) : start.body;
    return c.body(body, start.status as ContentfulStatusCode);
  }

  await next();
  const retryable = (c.res.status >= 500 && !(c.error instanceof OutcomeUnknownError)) || c.res.status === 429;
  if (retryable) {
    // The client keeps this answer (its code, its Retry-After) even when the key cannot be freed:
    // tried twice, then logged; such a key answers 409 "in progress" until it expires.
    await abandonIdempotentRequest(ctx, projectId, key)
      .catch(() => abandonIdempotentRequest(ctx, projectId, key))
      .catch((error: unknown) => logError(c.env, { where: "idempotency.abandon", projectId }, error));
    return;
  }
  const headers = Object.fromEntries(REPLAYED_HEADERS.flatMap((name) => (c.res.headers.has(name) ? [[name, c.res.headers.get(name)!]] : [])));
  try {
    const body = await c.res.clone().text();
    await completeIdempotentRequest(ctx, projectId, key, { status: c.res.status, body: codec ? codec.store(body, c.res.status) : body, headers });
  } catch (error) {
    // The work is done (perhaps a transaction sent): the client still gets its answer. The key
    // stays in progress, so a retry with it is turned away rather than run a second time.
    logError(c.env, { where: "idempotency.complete", projectId }, error);
  }
};

/** For routes behind a project key. */
export const idempotency = idempotencyScopedBy((c) => c.get("auth").projectId);
/** For routes behind a project key whose response holds a secret `codec` can derive again. */
export const idempotencyKeeping = (codec: StoredResponseCodec) => idempotencyScopedBy((c) => c.get("auth").projectId, codec);
/** For admin routes (behind requireAdmin). */
export const adminIdempotency = idempotencyScopedBy(() => ADMIN_IDEMPOTENCY_SCOPE);
