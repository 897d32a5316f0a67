import { applyD1Migrations } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterAll, expect } from "vitest";
import { scanForSecrets, secretScanReport } from "./helpers/secret-scan";
// Tests that drive the engine's pieces directly need the kinds the Worker entry registers.
import "../src/services/transaction-kinds";

await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);

// Each test file has its own D1 but all files share one anvil and one WALLET_MNEMONIC. A
// placeholder project at a random HD index makes this file's projects (max + 1, max + 2, …)
// use wallets no other file uses, so parallel files never share a wallet or its nonces.
const base = 1_000 + Math.floor(Math.random() * 2_000_000_000);
await env.DB.prepare("insert or ignore into projects (id, name, wallet_index, wallet_address, created_at, updated_at) values (?, ?, ?, ?, ?, ?)")
  .bind(crypto.randomUUID(), "test wallet-range placeholder", base, "0x0000000000000000000000000000000000000000", 0, 0)
  .run();

// Every log line of the Worker, its Durable Objects and the tests runs in this isolate.
for (const level of ["log", "info", "warn", "error", "debug"] as const) {
  const original = console[level].bind(console);
  console[level] = (...args: unknown[]) => {
    scanForSecrets(`console.${level}`, args.map((arg) => (typeof arg === "string" ? arg : arg instanceof Error ? `${arg.message}\n${arg.stack}` : JSON.stringify(arg))).join(" "));
    original(...args);
  };
}

afterAll(() => {
  const report = secretScanReport();
  expect(report.leaks, `secrets leaked (${report.scanned} responses and log lines scanned)`).toEqual([]);
});
