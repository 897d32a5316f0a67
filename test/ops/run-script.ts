// Runs one of the operator's scripts (scripts/*.mjs) as an operator would, with the given
// environment on top of a clean one, and returns its exit code and output.
import { execFile } from "node:child_process";
import path from "node:path";
import { ROOT } from "../../scripts/lib/solc-build.mjs";

export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout and stderr together, for "never printed" assertions. */
  output: string;
}

export function runScript(script: string, args: string[], env: Record<string, string | undefined> = {}, timeoutMs = 90_000): Promise<ScriptRun> {
  const base = { PATH: process.env.PATH, HOME: process.env.HOME, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" };
  const merged = Object.fromEntries(Object.entries({ ...base, ...env }).filter((entry): entry is [string, string] => entry[1] !== undefined));
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(ROOT, "scripts", script), ...args], { cwd: ROOT, env: merged as NodeJS.ProcessEnv, timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr, output: `${stdout}\n${stderr}` });
    });
  });
}
