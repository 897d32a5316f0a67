// The one error type and envelope. Every failure, validation included, leaves the service
// as `{ error: { code, message, details?, requestId } }` (DESIGN §3).
import type { ContentfulStatusCode } from "hono/utils/http-status";

export const ERROR_STATUS = {
  validation_error: 400,
  unsupported_chain: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  idempotency_conflict: 409,
  payload_too_large: 413,
  insufficient_funds: 422,
  sold_out: 422,
  order_not_fillable: 422,
  not_token_owner: 422,
  not_approved: 422,
  invalid_signature: 422,
  execution_reverted: 422,
  rate_limited: 429,
  internal_error: 500,
  chain_unavailable: 502,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export interface ErrorDetail {
  path: string;
  message: string;
}

export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: ErrorDetail[]; requestId: string };
}

export class AppError extends Error {
  override readonly name = "AppError";
  readonly status: ContentfulStatusCode;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    /** Extra response headers, e.g. Retry-After. */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

/**
 * The request reached the wallet engine and no answer came back, so whether its transaction went
 * out is unknown. Unlike other 5xx it is stored under the request's Idempotency-Key: a retry with
 * that key replays it rather than risking a second transaction.
 */
export class OutcomeUnknownError extends AppError {
  constructor(message: string, transactionId: string) {
    super("internal_error", message, [{ path: "transaction", message: `look it up with GET /v1/transactions/${transactionId} (404 = not sent)` }]);
  }
}

export const validationError = (path: string, message: string) =>
  new AppError("validation_error", `${path}: ${message}`, [{ path, message }]);
export const notFound = (what: string) => new AppError("not_found", `${what} not found`);
export const forbidden = (message: string) => new AppError("forbidden", message);

export function errorEnvelope(error: AppError, requestId: string): ErrorEnvelope {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      requestId,
    },
  };
}
