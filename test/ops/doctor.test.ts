// npm run doctor against a real devnet: anvil with the contracts deployed and a local D1 with the
// migrations applied give an all-green table and exit 0; then each check is broken on purpose
// (wrong chain id, missing code, a factory address the build does not give, a bad mnemonic, a
// short token, an http URL, unapplied migrations) and must fail with what to do. A whole run
// asks wrangler for the migrations (seconds of CPU), so whole runs cover the table, the exit
// codes and the migrations; the other breaks go through the same check functions directly.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAnvil, type AnvilHandle } from "../../scripts/lib/anvil.mjs";
import { deployDevnet, devnetChains, type DevnetAddresses } from "../../scripts/lib/devnet.mjs";
import { ADMIN_TOKEN_MIN_LENGTH, checkChain, checkPublicUrl, checkSecrets } from "../../scripts/lib/doctor-checks.mjs";
import { renderReport, runDoctor, type DoctorReport, type DoctorRow } from "../../scripts/lib/doctor.mjs";
import { dropContractAddresses } from "../../scripts/lib/drop-contracts.mjs";
import { ROOT } from "../../scripts/lib/solc-build.mjs";
import { ADMIN_TOKEN_MIN_LENGTH as SERVICE_MIN_LENGTH } from "../../src/services/auth/admin-token";
import { TEST_ADMIN_TOKEN, TEST_WALLET_MNEMONIC } from "../fixtures/secrets";
import { runScript, type ScriptRun } from "./run-script";

const PUBLIC_URL = "http://127.0.0.1:8787";
// The last word carries the checksum: "abandon" there makes a phrase of valid words that is not BIP-39.
const BAD_MNEMONIC = TEST_WALLET_MNEMONIC.replace(/about$/, "abandon");

let tmp: string;
let devnet: AnvilHandle;
let bare: AnvilHandle;
let contracts: DevnetAddresses;
let migrated: string;
const reports: Record<string, DoctorReport> = {};
const cli: Record<string, ScriptRun> = {};

function applyMigrations(persistTo: string) {
  return new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, "node_modules/wrangler/bin/wrangler.js"), "d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo], {
      cwd: ROOT,
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
      stdio: "ignore",
    });
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`migrations apply exited ${code}`))));
  });
}

/** The environment of a healthy local setup; each case overrides one thing. */
function environ(overrides: Record<string, string | undefined> = {}) {
  return {
    ...process.env,
    CHAINS: JSON.stringify(devnetChains(devnet.url, contracts)),
    PUBLIC_URL,
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    WALLET_MNEMONIC: TEST_WALLET_MNEMONIC,
    ...overrides,
  };
}

/** A local doctor run that ignores the developer's own .dev.vars and .dev/credentials.json. */
const doctor = (overrides: Record<string, string | undefined>, persistTo = migrated) =>
  runDoctor({ environ: environ(overrides), persistTo, devVars: path.join(tmp, "none.vars"), credentials: path.join(tmp, "none.json") });

const row = (report: DoctorReport | DoctorRow[], check: string) => {
  const rows = Array.isArray(report) ? report : report.rows;
  const found = rows.find((r) => r.check === check);
  if (!found) throw new Error(`no row ${check} in ${JSON.stringify(rows)}`);
  return found;
};
const failures = (report: DoctorReport | DoctorRow[]) => (Array.isArray(report) ? report : report.rows).filter((r) => r.status === "fail").map((r) => r.check);
const devnetChain = () => devnetChains(devnet.url, contracts)[1868];
const secretsRows = (overrides: { ADMIN_TOKEN?: string; WALLET_MNEMONIC?: string }) =>
  checkSecrets({ ADMIN_TOKEN: TEST_ADMIN_TOKEN, WALLET_MNEMONIC: TEST_WALLET_MNEMONIC, ...overrides }, "the environment", (name) => `put ${name}`);

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), "mintyard-doctor-"));
  migrated = path.join(tmp, "migrated");
  [devnet, bare] = await Promise.all([startAnvil({ blockTime: 0 }), startAnvil({ blockTime: 0 })]);
  contracts = await deployDevnet(devnet.url);
  await applyMigrations(migrated);
  const cliEnv = (overrides: Record<string, string> = {}) => ({ ...environ(overrides), HOME: tmp });
  await Promise.all([
    doctor({}).then((report) => (reports.green = report)),
    runScript("doctor.mjs", ["--persist-to", migrated], cliEnv()).then((run) => (cli.green = run)),
    runScript("doctor.mjs", ["--persist-to", path.join(tmp, "empty")], cliEnv()).then((run) => (cli.unapplied = run)),
  ]);
}, 600_000);

afterAll(async () => {
  await Promise.all([devnet?.stop(), bare?.stop()]);
  rmSync(tmp, { recursive: true, force: true });
});

describe("doctor on a healthy devnet", () => {
  it("passes every check and says where each input came from", () => {
    const report = reports.green!;
    expect(failures(report), renderReport(report)).toEqual([]);
    expect(report.rows.map((r) => [r.check, r.status])).toEqual([
      ["chain 1868: RPC", "ok"],
      ["chain 1868: Seaport 1.6", "ok"],
      ["chain 1868: DropERC721 implementation", "ok"],
      ["chain 1868: DropFactory", "ok"],
      ["secret ADMIN_TOKEN", "ok"],
      ["secret WALLET_MNEMONIC", "ok"],
      ["D1 migrations", "ok"],
      ["PUBLIC_URL", "ok"],
    ]);
    expect(row(report, "chain 1868: DropFactory").detail).toBe(`${dropContractAddresses().dropFactoryAddress} (this build's code)`);
    expect(row(report, "D1 migrations").detail).toMatch(/^all \d+ applied$/);
    expect(report.title).toContain("CHAINS from the CHAINS environment variable");
  });

  it("prints one table and exits 0 from the command line; 1 on unapplied migrations, with a line saying what to do", () => {
    expect(cli.green!.code, cli.green!.output).toBe(0);
    expect(cli.green!.stdout).toMatch(/^check +result +detail$/m);
    expect(cli.green!.stdout).toMatch(/^chain 1868: DropFactory +ok +0x/m);
    expect(cli.green!.stdout).toContain("doctor: all 8 checks passed");

    expect(cli.unapplied!.code).toBe(1);
    expect(cli.unapplied!.stdout).toMatch(/^D1 migrations +FAIL +(\d+) of \1 not applied: 0000_init\.sql, /m);
    expect(cli.unapplied!.stdout).toMatch(/^✗ D1 migrations: \d+ of \d+ not applied/m);
    expect(cli.unapplied!.stdout).toMatch(/^ {4}→ run npx wrangler d1 migrations apply DB --local --persist-to \S+empty \(npm run dev applies them when it starts\)$/m);
    expect(cli.unapplied!.stdout).toContain("doctor: 1 of 8 checks failed");
  });

  it("never prints a secret", () => {
    const short = TEST_ADMIN_TOKEN.slice(0, 20);
    const shown = [...Object.values(reports).map(renderReport), cli.green!.output, cli.unapplied!.output, JSON.stringify([...secretsRows({ WALLET_MNEMONIC: BAD_MNEMONIC }), ...secretsRows({ ADMIN_TOKEN: short })])];
    for (const text of shown) {
      for (const secret of [TEST_ADMIN_TOKEN, TEST_WALLET_MNEMONIC, BAD_MNEMONIC, short]) expect(text.includes(secret)).toBe(false);
    }
  });
});

describe("doctor, each check broken on purpose", () => {
  it("a chain whose RPC serves another chain id", async () => {
    const report = await checkChain("1946", devnetChain());
    expect(failures(report)).toEqual(["chain 1946: RPC"]);
    expect(row(report, "chain 1946: RPC")).toMatchObject({ detail: `${devnet.url} serves chain 1868, not 1946`, fix: 'point CHAINS["1946"].rpcUrl at a chain-1946 node' });
    expect(row(report, "chain 1946: DropFactory")).toMatchObject({ status: "skip", detail: "not checked: the RPC serves chain 1868" });
  });

  it("a chain without Seaport or the drop contracts", async () => {
    const report = await checkChain("1868", { ...devnetChain(), rpcUrl: bare.url });
    expect(failures(report)).toEqual(["chain 1868: Seaport 1.6", "chain 1868: DropERC721 implementation", "chain 1868: DropFactory"]);
    expect(row(report, "chain 1868: Seaport 1.6").detail).toBe(`no code at ${contracts.seaportAddress}`);
    expect(row(report, "chain 1868: DropFactory")).toMatchObject({
      detail: `no code at ${contracts.dropFactoryAddress}`,
      fix: "deploy it: npm run contracts:deploy -- --rpc <soneium RPC> --chain-id 1868",
    });
  });

  it("a configured factory address that is not this build's", async () => {
    const report = await checkChain("1868", { ...devnetChain(), dropFactoryAddress: contracts.seaportAddress });
    expect(failures(report)).toEqual(["chain 1868: DropFactory"]);
    expect(row(report, "chain 1868: DropFactory")).toMatchObject({
      detail: `CHAINS dropFactoryAddress is ${contracts.seaportAddress}, this build's factory is ${contracts.dropFactoryAddress}`,
      fix: expect.stringContaining(`set dropFactoryAddress to ${contracts.dropFactoryAddress} in wrangler.toml`),
    });
  });

  it("a mnemonic that is not valid BIP-39", () => {
    const report = secretsRows({ WALLET_MNEMONIC: BAD_MNEMONIC });
    expect(failures(report)).toEqual(["secret WALLET_MNEMONIC"]);
    expect(failures(secretsRows({ WALLET_MNEMONIC: `  ${TEST_WALLET_MNEMONIC.replaceAll(" ", "\n ")} ` }))).toEqual([]);
    expect(row(report, "secret WALLET_MNEMONIC").detail).toBe("not a valid BIP-39 English phrase (12 words; a word outside the list or a bad checksum)");
  });

  it("an admin token shorter than the service accepts", () => {
    expect(ADMIN_TOKEN_MIN_LENGTH).toBe(SERVICE_MIN_LENGTH);
    const report = secretsRows({ ADMIN_TOKEN: TEST_ADMIN_TOKEN.slice(0, SERVICE_MIN_LENGTH - 1) });
    expect(failures(report)).toEqual(["secret ADMIN_TOKEN"]);
    expect(row(report, "secret ADMIN_TOKEN").detail).toBe(`${SERVICE_MIN_LENGTH - 1} characters; the service refuses one shorter than ${SERVICE_MIN_LENGTH} (admin API and dashboard off)`);
  });

  it("a PUBLIC_URL over http to a host that is not loopback", () => {
    expect(checkPublicUrl("http://mintyard.example.com", { local: true })).toMatchObject({
      status: "fail",
      detail: expect.stringContaining("http://mintyard.example.com: http to a host that is not loopback"),
    });
  });

  it("http is loopback-only and local-only", () => {
    expect(checkPublicUrl("http://localhost:8787", { local: true }).status).toBe("ok");
    expect(checkPublicUrl("http://[::1]:8787", { local: true }).status).toBe("ok");
    expect(checkPublicUrl("http://127.0.0.1:8787", { local: false })).toMatchObject({ status: "fail", detail: expect.stringContaining("http outside local development") });
    expect(checkPublicUrl("https://api.mintyard.example", { local: false })).toMatchObject({ status: "ok", detail: "https://api.mintyard.example" });
    expect(checkPublicUrl("not a url", { local: false }).status).toBe("fail");
  });

});

describe("doctor on a remote environment, offline", () => {
  it("reads [env.staging], takes the secrets from --secrets-file, and names each placeholder and unreachable service", async () => {
    const secretsFile = path.join(tmp, "secrets.staging");
    writeFileSync(secretsFile, `ADMIN_TOKEN="${TEST_ADMIN_TOKEN}"\nWALLET_MNEMONIC="${TEST_WALLET_MNEMONIC}"\n`);
    const offline = { PATH: process.env.PATH, HOME: tmp };
    const shipped = await runDoctor({ env: "staging", environ: offline, secretsFile });
    expect(shipped.title).toBe(`environment staging: CHAINS from wrangler.toml [env.staging], PUBLIC_URL from wrangler.toml [env.staging], secrets from ${secretsFile}`);
    expect(shipped.rows.map((r) => [r.check, r.status])).toEqual([
      ["chain 1946: RPC", "fail"],
      ["chain 1946: Seaport 1.6", "skip"],
      ["chain 1946: DropERC721 implementation", "skip"],
      ["chain 1946: DropFactory", "skip"],
      ["secret ADMIN_TOKEN", "ok"],
      ["secret WALLET_MNEMONIC", "ok"],
      ["resource ids", "fail"],
      ["D1 migrations", "skip"],
      ["PUBLIC_URL", "fail"],
    ]);
    expect(row(shipped, "chain 1946: RPC").detail).toMatch(/^https:\/\/rpc\.minato\.soneium\.org did not answer/);
    expect(row(shipped, "resource ids")).toMatchObject({
      detail: "placeholder ids in wrangler.toml [env.staging]: D1 DB (mintyard-staging), KV KV",
      fix: expect.stringContaining("npx wrangler d1 create mintyard-staging; npx wrangler kv namespace create KV --env staging"),
    });
    expect(row(shipped, "PUBLIC_URL").detail).toContain("https://mintyard-staging.invalid is wrangler.toml's placeholder");

    // Ids filled in: the migrations are asked of Cloudflare's API, and this run holds no API token.
    const filled = path.join(tmp, "wrangler.filled.toml");
    writeFileSync(
      filled,
      readFileSync(path.join(ROOT, "wrangler.toml"), "utf8")
        .replaceAll('database_id = "00000000-0000-0000-0000-000000000000"', 'database_id = "6f1b0c7e-5d1a-4c43-9a57-2f3e8b9d0a11"')
        .replaceAll('id = "00000000000000000000000000000000"', 'id = "0f5e4d3c2b1a09f8e7d6c5b4a3928170"')
        .replaceAll('migrations_dir = "migrations"', `migrations_dir = ${JSON.stringify(path.join(ROOT, "migrations"))}`),
    );
    const remote = await runDoctor({ env: "staging", environ: offline, secretsFile, configPath: filled });
    expect(row(remote, "resource ids").status).toBe("ok");
    expect(row(remote, "D1 migrations")).toMatchObject({
      status: "fail",
      detail: expect.stringMatching(/^wrangler could not list them: .*CLOUDFLARE_API_TOKEN/),
      fix: expect.stringContaining("this check needs Cloudflare's API: set CLOUDFLARE_API_TOKEN"),
    });
  }, 300_000);
});
