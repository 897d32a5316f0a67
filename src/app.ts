import type { ErrorHandler, NotFoundHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { createRouter } from "./routes/create-router";
import { AppError, errorEnvelope } from "./lib/errors";
import { logError } from "./lib/log";
import { requestId } from "./routes/middleware/request-id";
import type { AppBindings } from "./routes/app-types";
import { registerOpenApi } from "./openapi";
import { routers } from "./routes";
import { dashboardRouter } from "./routes/dashboard/dashboard.index";
import { docsRouter } from "./routes/docs/docs.index";
import { ChainUnavailableError } from "./chain/chain-unavailable";

const MAX_BODY_BYTES = 1024 * 1024;

/** Anything not an AppError is our fault: logged (without secrets) and reported as a bare 500. */
export const onError: ErrorHandler<AppBindings> = (err, c) => {
  const requestIdValue = c.get("requestId") ?? crypto.randomUUID();
  let appError: AppError;
  if (err instanceof AppError) {
    appError = err;
  } else if (err instanceof ChainUnavailableError) {
    // A chain read no node answered, wherever it happened: the client's 502, safe to retry.
    appError = new AppError("chain_unavailable", "the chain's RPC did not answer; the request can be retried");
  } else if (err instanceof HTTPException && err.status < 500) {
    // Hono raises these for unreadable bodies (malformed JSON, wrong content type).
    appError = new AppError("validation_error", err.message || "invalid request body", [
      { path: "body", message: err.message || "invalid request body" },
    ]);
  } else {
    logError(c.env, { requestId: requestIdValue, method: c.req.method, path: c.req.path }, err);
    appError = new AppError("internal_error", "internal error");
  }
  for (const [name, value] of Object.entries(appError.headers ?? {})) c.header(name, value);
  c.header("x-request-id", requestIdValue);
  return c.json(errorEnvelope(appError, requestIdValue), appError.status);
};

export const onNotFound: NotFoundHandler<AppBindings> = (c) => {
  throw new AppError("not_found", `no route for ${c.req.method} ${c.req.path}`);
};

export function createApp() {
  const app = createRouter();
  app.use("*", requestId);
  app.use(
    "*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new AppError("payload_too_large", `request body exceeds ${MAX_BODY_BYTES} bytes`);
      },
    }),
  );
  for (const router of routers) app.route("/", router);
  app.route("/dashboard", dashboardRouter);
  registerOpenApi(app);
  app.route("/", docsRouter);
  app.notFound(onNotFound);
  app.onError(onError);
  return app;
}
