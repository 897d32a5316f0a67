import { OpenAPIHono } from "@hono/zod-openapi";
import type { ZodError } from "zod";
import { AppError, type ErrorDetail } from "../lib/errors";
import type { AppBindings } from "./app-types";

const TARGET_PREFIX: Record<string, string> = {
  json: "body",
  query: "query",
  param: "path",
  header: "header",
  form: "body",
  cookie: "cookie",
};

type Issue = ZodError["issues"][number];

/**
 * The union branch the request most likely meant: the one with the fewest problems at its own
 * top level (missing or unknown keys), then the fewest problems. A body with `parameters` whose
 * `zoneHash` is missing is reported as that, not as "no orderHash, unknown field parameters".
 */
function closestBranch(branches: Issue[][]): Issue[] {
  const shallow = (issues: Issue[]) => issues.filter((issue) => issue.path.length <= 1).length;
  return branches.reduce((best, branch) =>
    shallow(branch) < shallow(best) || (shallow(branch) === shallow(best) && branch.length < best.length) ? branch : best,
  );
}

function issueDetails(issue: Issue, path: PropertyKey[]): ErrorDetail[] {
  const at = [...path, ...issue.path];
  // Only unions of objects or arrays have a branch to point into (a nested issue or an unknown
  // key); "string or number" keeps its message.
  const intoBranch = (inner: Issue) => inner.path.length > 0 || inner.code === "unrecognized_keys";
  if (issue.code === "invalid_union" && issue.errors.some((branch) => branch.some(intoBranch))) {
    return closestBranch(issue.errors).flatMap((inner) => issueDetails(inner, at));
  }
  const keys = issue.code === "unrecognized_keys" ? issue.keys : [undefined];
  return keys.map((key) => ({
    path: [...at, ...(key === undefined ? [] : [key])].map(String).join("."),
    message: issue.code === "unrecognized_keys" ? "unknown field" : issue.message,
  }));
}

export function zodIssuesToDetails(error: ZodError, target: string): ErrorDetail[] {
  const prefix = TARGET_PREFIX[target] ?? target;
  return error.issues.flatMap((issue) => issueDetails(issue, [prefix]));
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
