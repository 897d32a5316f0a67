import type { MiddlewareHandler } from "hono";

/**
 * Marks every response of a deprecated route, errors included (RFC 9745 `Deprecation`, RFC 8288
 * `Link` to its successor): set before the handler runs, so the error handler's response has them too.
 */
export const deprecatedFor =
  (successor: string): MiddlewareHandler =>
  async (c, next) => {
    c.header("Deprecation", "true");
    c.header("Link", `<${successor}>; rel="successor-version"`);
    await next();
  };
