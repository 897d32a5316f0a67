// Starts the anvil binary shipped in the npm registry package @foundry-rs/anvil-<platform>.
// Used by `npm run dev`, the vitest global setups and the benchmark scripts.
// package.json depends on the linux-amd64 binary package directly (as an optional dependency):
// the `@foundry-rs/anvil` wrapper lists every platform's package, and the registry these
// machines use only carries linux-amd64, which makes `npm ci` reject the lockfile.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync } from "node:fs";
import net from "node:net";
import path from "node:path";

const require = createRequire(import.meta.url);

export const DEVNET_CHAIN_ID = 1868;
/** anvil's default accounts come from this well-known test mnemonic. */
export const ANVIL_TEST_MNEMONIC = "test test test test test test test test test test test junk";

export function anvilBinary() {
  const platform = { linux: "linux", darwin: "darwin", win32: "win32" }[process.platform];
  const arch = { x64: "amd64", arm64: "arm64" }[process.arch];
  try {
    const pkgJson = require.resolve(`@foundry-rs/anvil-${platform}-${arch}/package.json`);
    const bin = path.join(path.dirname(pkgJson), "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
    if (existsSync(bin)) return bin;
  } catch {
    // not installed for this platform: fall back to an anvil on PATH (foundryup)
  }
  return "anvil";
}

export async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function rpc(url, method, params = []) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/**
 * Starts anvil on 127.0.0.1. Options: port (default: a free one), blockTime (seconds,
 * default 1; 0 = automine), gasLimit, extraArgs.
 * Resolves once the node answers eth_chainId.
 */
export async function startAnvil({ port, blockTime = 1, gasLimit, extraArgs = [], silent = true } = {}) {
  const chosenPort = port ?? (await freePort());
  const args = ["--host", "127.0.0.1", "--port", String(chosenPort), "--chain-id", String(DEVNET_CHAIN_ID), "--hardfork", "prague"];
  if (blockTime > 0) args.push("--block-time", String(blockTime));
  if (gasLimit) args.push("--gas-limit", String(gasLimit));
  if (silent) args.push("--silent");
  args.push(...extraArgs);

  const child = spawn(anvilBinary(), args, { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const exited = new Promise((resolve) => child.once("exit", resolve));

  const url = `http://127.0.0.1:${chosenPort}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`anvil exited (${child.exitCode}): ${stderr}`);
    try {
      await rpc(url, "eth_chainId");
      break;
    } catch {
      if (Date.now() > deadline) {
        child.kill("SIGKILL");
        throw new Error(`anvil did not answer on ${url}: ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  return {
    url,
    port: chosenPort,
    process: child,
    rpc: (method, params) => rpc(url, method, params),
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 2000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
    },
  };
}
