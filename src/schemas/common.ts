import { z } from "@hono/zod-openapi";
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from "../lib/errors";
import { MAX_UINT256 } from "../lib/uint256";

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** Request address: 20-byte hex in any case, normalised to lower case for storage and lookups. */
export const AddressInput = z
  .string()
  .regex(HEX_ADDRESS, "must be a 20-byte hex address (0x + 40 hex characters)")
  .transform((value) => value.toLowerCase())
  .openapi({ example: "0x5FbDB2315678afecb367f032d93F642f64180aa3", description: "20-byte hex address, any case" });

/** Response address: EIP-55 checksummed. */
export const Address = z.string().openapi({ example: "0x5FbDB2315678afecb367f032d93F642f64180aa3", description: "EIP-55 checksummed address" });

export const Hex = z.string().regex(/^0x[0-9a-fA-F]*$/, "must be 0x-prefixed hex");
export const Bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be 32-byte hex (0x + 64 hex characters)");

const UINT_DIGITS = /^(0|[1-9][0-9]{0,77})$/;

/** Non-negative integer as a decimal string (uint256 amounts and token ids). */
export const UintString = z
  .string()
  .regex(UINT_DIGITS, "must be a non-negative integer string")
  // Checks after a failed regex still run in zod 4, so this one must not assume the format.
  .refine((value) => !UINT_DIGITS.test(value) || BigInt(value) <= MAX_UINT256, "must fit in uint256")
  .openapi({ example: "1000000000000000" });

/** A UintString greater than zero. */
export const PositiveUintString = UintString.refine((value) => !UINT_DIGITS.test(value) || BigInt(value) > 0n, "must be greater than 0");

export const ChainIdBody = z.number().int("must be an integer").positive("must be positive").openapi({ example: 1868 });
/**
 * A path or query integer in plain decimal digits. `Number()` (z.coerce) would also take `0x74c`,
 * `1e3`, `1868.0` or ` 01868`: one value with many URLs (each its own cache entry), and a client's
 * bug passed off as a value (decision 1). Anything else reaches the number schema as a string and
 * is refused with its message.
 */
const DECIMAL_DIGITS = /^(0|[1-9][0-9]{0,15})$/;
const decimalInteger = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (typeof value === "string" && DECIMAL_DIGITS.test(value) ? Number(value) : value), schema);

export const ChainIdQuery = decimalInteger(z.number("must be a decimal integer").int("must be an integer").positive("must be positive")).openapi({
  type: "integer",
  exclusiveMinimum: 0,
  example: 1868,
});

/** Response timestamp (the service writes these, so no check). */
export const IsoDateTime = z.string().openapi({ format: "date-time", example: "2026-11-21T12:00:00.000Z" });
/** Request timestamp: ISO 8601 with `Z` or an offset; anything else is a 400 naming the field. */
export const IsoDateTimeInput = z.iso.datetime({ offset: true }).openapi({ example: "2026-11-21T12:00:00.000Z" });
export const Uuid = z.string().openapi({ format: "uuid", example: "0b7c3f9e-3c1d-4a8e-9a53-2f1f6b3c8d11" });
/** A UUID in a path, any case; ids are stored as crypto.randomUUID writes them (lower case). */
export const uuidPathParam = (name: string) =>
  z
    .uuid("must be a UUID")
    .transform((value) => value.toLowerCase())
    .openapi({ param: { name, in: "path" }, format: "uuid", description: "A UUID, any case" });

export const ErrorEnvelopeSchema = z
  .object({
    error: z.object({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      details: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
      requestId: z.string(),
    }),
  })
  .openapi("ErrorEnvelope", {
    example: {
      error: {
        code: "validation_error",
        message: "body.recipientAddress: must be a 20-byte hex address (0x + 40 hex characters)",
        details: [{ path: "body.recipientAddress", message: "must be a 20-byte hex address (0x + 40 hex characters)" }],
        requestId: "4f1c2d0e-6b0a-4d8e-9a53-2f1f6b3c8d11",
      },
    },
  });

/** A message per error code, for the documented error examples. */
const ERROR_EXAMPLE_MESSAGES: Record<ErrorCode, string> = {
  validation_error: "body.recipientAddress: must be a 20-byte hex address (0x + 40 hex characters)",
  unsupported_chain: "chain 5 is not supported",
  unauthorized: "missing credentials: send x-api-key or Authorization: Bearer <secret key>",
  forbidden: "this endpoint needs a secret key",
  not_found: "drop not found",
  conflict: "a request with this Idempotency-Key is still in progress; retry later",
  idempotency_conflict: "this Idempotency-Key was used with a different request",
  payload_too_large: "request body exceeds 1048576 bytes",
  insufficient_funds: "the project wallet cannot pay for this transaction",
  sold_out: "the drop has no supply left for this quantity",
  order_not_fillable: "the order has expired",
  not_token_owner: "the offerer does not own the offered token",
  not_approved: "the offerer has not approved Seaport to transfer this token",
  invalid_signature: "the signature is not the offerer's for this order on this chain's Seaport, and the order is not validated on chain",
  execution_reverted: "the transaction would revert: MintingNotStarted()",
  rate_limited: "rate limit exceeded for this key; retry in 60 s",
  internal_error: "internal error",
  chain_unavailable: "chain 1868 RPC is unreachable",
};

/** The example of one error code; registered once as `#/components/examples/error.<code>`. */
export const errorExample = (code: ErrorCode) => ({
  summary: code,
  value: {
    error: {
      code,
      message: ERROR_EXAMPLE_MESSAGES[code],
      ...(code === "validation_error"
        ? { details: [{ path: "body.recipientAddress", message: "must be a 20-byte hex address (0x + 40 hex characters)" }] }
        : {}),
      requestId: "4f1c2d0e-6b0a-4d8e-9a53-2f1f6b3c8d11",
    },
  },
});

type ErrorResponse = {
  description: string;
  content: { "application/json": { schema: typeof ErrorEnvelopeSchema; examples: Record<string, { $ref: string }> } };
  headers?: Record<string, { description: string; schema: { type: "string" } }>;
};

/**
 * OpenAPI response entries for the error codes a route can return: one per status, naming its
 * codes, with one example per code (429 also documents Retry-After). Pass every code of a route
 * in one call: spreading two calls that share a status keeps only the last one's codes.
 */
export function errorResponses(...codes: ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of new Set(codes)) {
    const status = ERROR_STATUS[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, statusCodes]): [number, ErrorResponse] => [
      status,
      {
        description: `Error: ${statusCodes.join(", ")}`,
        content: {
          "application/json": {
            schema: ErrorEnvelopeSchema,
            examples: Object.fromEntries(statusCodes.map((code) => [code, { $ref: `#/components/examples/error.${code}` }])),
          },
        },
        ...(status === 429
          ? { headers: { "Retry-After": { description: "Seconds to wait before the next request with this key", schema: { type: "string" as const } } } }
          : {}),
      },
    ]),
  ) as Record<number, ErrorResponse>;
}

/** How an operation authenticates (the middleware in front of its handler). */
export type OperationAuth = "none" | "admin" | "anyKey" | "secretKey";

/**
 * Every error an operation can return, by the rule of docs/decisions.md §15: 500
 * `internal_error` everywhere; 400 `validation_error` when it validates input (path, query,
 * header or body); 413 `payload_too_large` with a body; 401 `unauthorized` behind any
 * credential; 429 `rate_limited` behind a project key; 403 `forbidden` behind the secret key;
 * 409 `conflict` and `idempotency_conflict` with `Idempotency-Key`; plus the operation's own
 * codes, sorted by status.
 */
export function operationErrors(
  options: { auth: OperationAuth; input?: boolean; body?: boolean; idempotent?: boolean },
  ...codes: ErrorCode[]
) {
  const all: ErrorCode[] = [];
  if (options.input || options.body || options.idempotent) all.push("validation_error");
  if (options.auth !== "none") all.push("unauthorized");
  if (options.auth === "secretKey") all.push("forbidden");
  if (options.body) all.push("payload_too_large");
  if (options.idempotent) all.push("conflict", "idempotency_conflict");
  if (options.auth === "anyKey" || options.auth === "secretKey") all.push("rate_limited");
  all.push(...codes, "internal_error");
  const unique = [...new Set(all)];
  return errorResponses(...unique.sort((a, b) => ERROR_STATUS[a] - ERROR_STATUS[b] || unique.indexOf(a) - unique.indexOf(b)));
}

/** A JSON response; `example` is the media type's example (the reference shows it). */
export const jsonContent = <T extends z.ZodType>(schema: T, description: string, example?: z.input<T>) => ({
  content: { "application/json": { schema, ...(example === undefined ? {} : { example }) } },
  description,
});

/** A required JSON request body; `example` is the media type's example. */
export const jsonBody = <T extends z.ZodType>(schema: T, description?: string, example?: z.input<T>) => ({
  body: {
    content: { "application/json": { schema, ...(example === undefined ? {} : { example }) } },
    required: true,
    ...(description ? { description } : {}),
  },
});

type Security = Record<string, string[]>[];
/** Reads and order submission: an API key or a secret key. */
export const READ_SECURITY: Security = [{ ApiKey: [] }, { SecretKey: [] }];
/** Anything that spends or signs with the project wallet. */
export const SECRET_SECURITY: Security = [{ SecretKey: [] }];
export const ADMIN_SECURITY: Security = [{ AdminToken: [] }];

/** `true`/`false` in a query string. */
export const BooleanQuery = z
  .enum(["true", "false"], "must be true or false")
  .transform((value) => value === "true")
  .openapi({ type: "boolean", example: true });

/** A page-size query parameter, 1..max, in decimal digits. */
export const limitQuery = (max: number, defaultValue: number) =>
  decimalInteger(z.number("must be a decimal integer").int("must be an integer").min(1, "must be at least 1").max(max, `must be at most ${max}`))
    .default(defaultValue)
    .openapi({ type: "integer", minimum: 1, maximum: max, default: defaultValue, example: defaultValue, description: `Page size, 1..${max}` });

export const PageQuery = decimalInteger(
  z.number("must be a decimal integer").int("must be an integer").min(1, "must be at least 1").max(1_000_000, "must be at most 1000000"),
)
  .default(1)
  .openapi({ type: "integer", minimum: 1, maximum: 1_000_000, default: 1, example: 1, description: "Page number, from 1" });

export const LimitQuery = limitQuery(100, 20);

export const PaginationSchema = z
  .object({ total: z.number().int(), page: z.number().int(), limit: z.number().int() })
  .openapi("Pagination");

const LINK_PROTOCOLS = /^(https?|ipfs|ipns|ar)$/;
/**
 * The only inline media: raster images, which no page runs. An SVG is a document that can carry
 * script and links, and a page that shows `image` or `animationUrl` may open it as one; other
 * data: URLs (HTML, video with embedded tracks, 3D scenes) are hosted (https, ipfs) instead.
 * Matched on the value as sent, from its first character: a space or tab anywhere in the media
 * type fails it, so no spelling that a browser would read as another type gets through.
 */
const INLINE_RASTER_IMAGE = /^data:image\/(png|jpeg|gif|webp|avif)(;[^,]*)?,/i;
const MEDIA_URL_ERROR = "must be an http(s), ipfs://, ipns:// or ar:// URL, or a data: URL of a PNG, JPEG, GIF, WebP or AVIF image";

/**
 * A link stored for others to follow: http(s), ipfs://, ipns:// or ar://. Not javascript:, file:
 * or data:text/html: what one project stores reaches every marketplace page that shows its tokens.
 */
export const LinkUrl = z.url({ protocol: LINK_PROTOCOLS, error: "must be an http(s), ipfs://, ipns:// or ar:// URL" }).max(2048);

/**
 * Media (token `image` and `animationUrl`, a collection's `imageUrl`, and any media field added
 * later): a link as LinkUrl, or inline as a data: URL of a raster image (on-chain art).
 */
export const MediaUrl = z
  .url({ error: MEDIA_URL_ERROR })
  .max(2048)
  // Not a URL at all is the check above's issue alone.
  .refine((value) => {
    const url = URL.parse(value);
    return url === null || INLINE_RASTER_IMAGE.test(value) || LINK_PROTOCOLS.test(url.protocol.slice(0, -1));
  }, { error: MEDIA_URL_ERROR })
  .openapi({ description: "An http(s), ipfs://, ipns:// or ar:// URL, or a data: URL of a PNG, JPEG, GIF, WebP or AVIF image (no SVG or other data: URL: these reach every page that shows it)" });
