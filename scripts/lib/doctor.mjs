// `npm run doctor`: gathers one environment's configuration and secrets, runs the checks
// (scripts/lib/doctor-checks.mjs) and renders one table. Where each input comes from:
//   vars     wrangler.toml, that environment's (the top level for local). Locally, when
//            `npm run dev` has recorded its stack in .dev/credentials.json, its CHAINS and
//            PUBLIC_URL (what that wrangler dev serves). CHAINS or PUBLIC_URL set in the
//            environment override either, to check a config before it is committed.
//   secrets  ADMIN_TOKEN and WALLET_MNEMONIC from the environment, else from --secrets-file (a
//            KEY=VALUE file, the one `wrangler secret bulk` uploads), else locally from .dev.vars.
//            Cloudflare never hands secrets back, so a remote environment is checked through the
//            values its operator uploads.
//   D1       locally, the state `npm run dev` persists (.dev/state, or --persist-to); remotely,
//            `wrangler d1 migrations list DB --remote --env <env>`, which needs Cloudflare's API.
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseEnv } from "node:util";
import { devnetChains } from "./devnet.mjs";
import { checkChain, checkChainsConfig, checkMigrations, checkPublicUrl, checkResourceIds, checkSecrets } from "./doctor-checks.mjs";
import { readEnvironment, WRANGLER_TOML } from "./wrangler-config.mjs";

const ROOT = path.dirname(WRANGLER_TOML);
const SECRET_NAMES = ["ADMIN_TOKEN", "WALLET_MNEMONIC"];

/**
 * Runs every check for `env` (undefined: local). Options: environ (process.env), configPath,
 * secretsFile, and for local runs devVars, credentials and persistTo (npm run dev's files).
 */
export async function runDoctor({
  env,
  environ = process.env,
  configPath = WRANGLER_TOML,
  secretsFile,
  devVars = path.join(ROOT, ".dev.vars"),
  credentials = path.join(ROOT, ".dev", "credentials.json"),
  persistTo = path.join(ROOT, ".dev", "state"),
} = {}) {
  const local = env === undefined;
  const config = readEnvironment(env, configPath);
  const where = local ? "wrangler.toml [vars]" : `wrangler.toml [env.${env}]`;
  const vars = resolveVars({ config, where, local, credentials, environ });
  const secrets = resolveSecrets({ local, devVars, secretsFile, environ });

  const { rows: configRows, chains } = checkChainsConfig(vars.CHAINS.value, vars.CHAINS.from);
  const chainRows = (await Promise.all(Object.entries(chains).map(([id, chain]) => checkChain(id, chain)))).flat();
  const putCommand = local
    ? (name) => `put ${name}="…" in .dev.vars (npm run dev writes a fresh one)`
    : (name) => `upload it: npx wrangler secret put ${name} --env ${env}`;
  const resourceRows = local ? [] : checkResourceIds(config, { where, flag: `--env ${env}` });
  const rows = [
    ...configRows,
    ...chainRows,
    ...checkSecrets(secrets.values, secrets.lookedIn, putCommand),
    ...resourceRows,
    await migrationsRow({ env, local, config, configPath, persistTo, environ, placeholderIds: resourceRows.some((r) => r.status === "fail") }),
    checkPublicUrl(vars.PUBLIC_URL.value, { local }),
  ];
  return {
    title: `environment ${local ? "local (no --env)" : env}: CHAINS from ${vars.CHAINS.from}, PUBLIC_URL from ${vars.PUBLIC_URL.from}, secrets from ${secrets.from}`,
    rows,
  };
}

function resolveVars({ config, where, local, credentials, environ }) {
  const vars = {
    CHAINS: { value: config.vars.CHAINS, from: where },
    PUBLIC_URL: { value: config.vars.PUBLIC_URL, from: where },
  };
  if (local && existsSync(credentials)) {
    const dev = JSON.parse(readFileSync(credentials, "utf8"));
    const from = `${path.relative(ROOT, credentials) || credentials} (npm run dev's stack)`;
    vars.CHAINS = { value: JSON.stringify(devnetChains(dev.rpcUrl, dev)), from };
    vars.PUBLIC_URL = { value: dev.baseUrl, from };
  }
  for (const name of ["CHAINS", "PUBLIC_URL"]) {
    if (environ[name]) vars[name] = { value: environ[name], from: `the ${name} environment variable` };
  }
  return vars;
}

function resolveSecrets({ local, devVars, secretsFile, environ }) {
  const layers = [];
  if (local) layers.push({ from: path.basename(devVars), values: existsSync(devVars) ? parseEnv(readFileSync(devVars, "utf8")) : {} });
  if (secretsFile) layers.push({ from: secretsFile, values: parseEnv(readFileSync(secretsFile, "utf8")) });
  layers.push({ from: "the environment", values: environ });
  const values = {};
  const sourceOf = {};
  for (const layer of layers) {
    for (const name of SECRET_NAMES) {
      if (layer.values[name]) [values[name], sourceOf[name]] = [layer.values[name], layer.from];
    }
  }
  const used = [...new Set(Object.values(sourceOf))];
  const lookedIn = layers.map((l) => l.from).join(", ");
  return { values, from: used.length > 0 ? used.join(" and ") : `nowhere (looked in ${lookedIn})`, lookedIn };
}

async function migrationsRow({ env, local, config, configPath, persistTo, environ, placeholderIds }) {
  const database = config.d1_databases.find((d) => d.binding === "DB");
  if (!database) return { check: "D1 migrations", status: "fail", detail: "no D1 binding named DB", fix: "add the [[d1_databases]] binding DB to this environment" };
  if (!local && placeholderIds) return { check: "D1 migrations", status: "skip", detail: "not checked: the database id is a placeholder" };
  const configArgs = path.resolve(configPath) === WRANGLER_TOML ? [] : ["--config", configPath];
  const where = local ? ["--local", "--persist-to", shortPath(persistTo)] : ["--remote", "--env", env];
  return checkMigrations({
    root: ROOT,
    migrationsDir: path.resolve(path.dirname(configPath), database.migrations_dir ?? "migrations"),
    wranglerArgs: [...where, ...configArgs],
    applyCommand: `npx wrangler d1 migrations apply DB ${where.join(" ")}${local ? " (npm run dev applies them when it starts)" : ""}`,
    environ,
  });
}

/** A path as the operator would type it from the repository: relative inside it, else absolute. */
function shortPath(p) {
  const relative = path.relative(ROOT, path.resolve(p));
  return relative.startsWith("..") || path.isAbsolute(relative) ? path.resolve(p) : relative || ".";
}

const MARK = { ok: "ok", fail: "FAIL", skip: "skip" };

/** The report: the table, then one line per failure with what to do, then the verdict. */
export function renderReport({ title, rows }) {
  const width = Math.max(5, ...rows.map((r) => r.check.length));
  const lines = [`mintyard doctor: ${title}`, "", `${"check".padEnd(width)}  result  detail`];
  for (const row of rows) lines.push(`${row.check.padEnd(width)}  ${MARK[row.status].padEnd(6)}  ${row.detail}`);
  const failures = rows.filter((r) => r.status === "fail");
  lines.push("");
  if (failures.length === 0) {
    lines.push(`doctor: all ${rows.filter((r) => r.status === "ok").length} checks passed`);
  } else {
    for (const row of failures) lines.push(`✗ ${row.check}: ${row.detail}\n    → ${row.fix}`);
    lines.push("", `doctor: ${failures.length} of ${rows.length} checks failed`);
  }
  return `${lines.join("\n")}\n`;
}
