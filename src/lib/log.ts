// Structured logs. Messages of unexpected errors are kept for debugging, but secrets and RPC URL
// paths/queries (providers put API keys there) are scrubbed first.
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

export function logError(env: Partial<Pick<Env, "WALLET_MNEMONIC" | "ADMIN_TOKEN">>, fields: Record<string, unknown>, error: unknown) {
  const secrets = [env.WALLET_MNEMONIC, env.ADMIN_TOKEN];
  const err = error instanceof Error ? error : new Error(String(error));
  console.error(
    JSON.stringify({
      level: "error",
      ...fields,
      error: err.name,
      message: redact(err.message, secrets),
      stack: redact(err.stack ?? "", secrets),
    }),
  );
}

/** A transient, expected failure (an RPC hiccup the caller retries): one line, no stack. */
export function logWarn(env: Partial<Pick<Env, "WALLET_MNEMONIC" | "ADMIN_TOKEN">>, fields: Record<string, unknown>, error: unknown) {
  const err = error instanceof Error ? error : new Error(String(error));
  const short = (err as { shortMessage?: string }).shortMessage ?? err.message.split("\n")[0] ?? "";
  console.warn(JSON.stringify({ level: "warn", ...fields, error: err.name, message: redact(short, [env.WALLET_MNEMONIC, env.ADMIN_TOKEN]) }));
}
