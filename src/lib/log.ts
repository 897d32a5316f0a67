// Structured logs. Messages of unexpected errors are kept for debugging, but secrets and RPC URL
// paths/queries (providers put API keys there) are scrubbed first, and failed queries are logged
// without their parameters.
import { DrizzleQueryError } from "drizzle-orm";
const URL_PATTERN = /\bhttps?:\/\/[^\s"'<>]+/g;

export function redact(text: string, secrets: (string | undefined)[]): string {
  let out = text.replace(URL_PATTERN, (url) => {
    try {
      return new URL(url).origin;
    } catch {
      return "[url]";
    }
  });
  for (const secret of secrets) {
    if (secret && secret.length >= 8) out = out.split(secret).join("[redacted]");
  }
  return out;
}

/**
 * The name, message and stack to log. A failed drizzle query's message lists its parameters,
 * which can be row values worth hiding (a stored response holding a deploy's blind-box key): it
 * is logged as the database's own error, then the query (its first line is what logWarn keeps).
 */
function loggable(error: unknown): { name: string; message: string; stack: string } {
  if (error instanceof DrizzleQueryError) {
    const cause = error.cause instanceof Error ? `${error.cause.message}; ` : "";
    const message = `${cause}failed query: ${error.query.replace(/\s+/g, " ")}`;
    return { name: "DrizzleQueryError", message, stack: (error.stack ?? "").split(error.message).join(message) };
  }
  if (error instanceof Error) return { name: error.name, message: error.message, stack: error.stack ?? "" };
  return { name: "Error", message: describeThrown(error), stack: "" };
}

/** A thrown non-Error as text; String() itself throws for an object without a prototype. */
function describeThrown(value: unknown): string {
  try {
    return String(value);
  } catch {
    return "a non-Error value was thrown";
  }
}

export function logError(env: Partial<Pick<Env, "WALLET_MNEMONIC" | "ADMIN_TOKEN">>, fields: Record<string, unknown>, error: unknown) {
  const secrets = [env.WALLET_MNEMONIC, env.ADMIN_TOKEN];
  const err = loggable(error);
  console.error(
    JSON.stringify({
      level: "error",
      ...fields,
      error: err.name,
      message: redact(err.message, secrets),
      stack: redact(err.stack, secrets),
    }),
  );
}

/** A transient, expected failure (an RPC hiccup the caller retries): one line, no stack. */
export function logWarn(env: Partial<Pick<Env, "WALLET_MNEMONIC" | "ADMIN_TOKEN">>, fields: Record<string, unknown>, error: unknown) {
  const err = loggable(error);
  const short = (error instanceof Error ? (error as { shortMessage?: string }).shortMessage : undefined) ?? err.message.split("\n")[0] ?? "";
  console.warn(JSON.stringify({ level: "warn", ...fields, error: err.name, message: redact(short, [env.WALLET_MNEMONIC, env.ADMIN_TOKEN]) }));
}
