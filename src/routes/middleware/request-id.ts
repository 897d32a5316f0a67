import type { MiddlewareHandler } from "hono";
import type { AppBindings } from "../app-types";

const CLIENT_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Echoes a sane client `x-request-id`, otherwise mints one; every response carries it. */
export const requestId: MiddlewareHandler<AppBindings> = async (c, next) => {
  const incoming = c.req.header("x-request-id");
  const id = incoming && CLIENT_ID.test(incoming) ? incoming : crypto.randomUUID();
  c.set("requestId", id);
  c.header("x-request-id", id);
  await next();
};
