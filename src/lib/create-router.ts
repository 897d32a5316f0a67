import { OpenAPIHono } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { AppError, type ErrorDetail } from "./errors";
import type { AppBindings } from "./types";

const TARGET_PREFIX: Record<string, string> = {
  json: "body",
  query: "query",
  param: "path",
  header: "header",
  form: "body",
  cookie: "cookie",
};

export function zodIssuesToDetails(error: ZodError, target: string): ErrorDetail[] {
  const prefix = TARGET_PREFIX[target] ?? target;
  return error.issues.map((issue) => {
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [undefined];
    return keys.map((key) => ({
      path: [prefix, ...issue.path, ...(key === undefined ? [] : [key])].map(String).join("."),
      message: issue.code === "unrecognized_keys" ? "unknown field" : issue.message,
    }));
  }).flat();
}

/** A router whose validation failures become the 400 envelope (thrown, so onError renders it). */
export function createRouter() {
  return new OpenAPIHono<AppBindings>({
    strict: false,
    defaultHook: (result) => {
      if (!result.success) {
        const details = zodIssuesToDetails(result.error, result.target);
        const first = details[0];
        throw new AppError(
          "validation_error",
          first ? `${first.path}: ${first.message}` : "invalid request",
          details,
        );
      }
    },
  });
}
