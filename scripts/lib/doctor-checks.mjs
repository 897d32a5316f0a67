// The checks `npm run doctor` runs (scripts/lib/doctor.mjs gathers their inputs). Each returns
// rows { check, status: "ok" | "fail" | "skip", detail, fix? }: detail says what was found,
// fix what to do about a failure. No row ever holds a secret's value.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english";
import { createPublicClient, domainSeparator, getAddress, http, isAddress } from "viem";
import { loadArtifact } from "./artifacts.mjs";
import { create2DeployerStatus, CREATE2_DEPLOYER } from "./create2.mjs";
import { dropContracts, inspectContract } from "./drop-contracts.mjs";
import { rpcLabel } from "./rpc-label.mjs";

/** The service's own minimum (src/services/auth/admin-token.ts; test/ops/doctor.test.ts keeps them equal). */
export const ADMIN_TOKEN_MIN_LENGTH = 32;
const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
const RPC_TIMEOUT_MS = 10_000;
const WRANGLER_TIMEOUT_MS = 90_000;

const ok = (check, detail) => ({ check, status: "ok", detail });
const fail = (check, detail, fix) => ({ check, status: "fail", detail, fix });
const skip = (check, detail) => ({ check, status: "skip", detail });

/** CHAINS must parse and name, per chain, the fields the service and these checks read. */
export function checkChainsConfig(raw, where) {
  let chains;
  try {
    chains = JSON.parse(raw ?? "");
  } catch {
    return { rows: [fail("CHAINS", `${where}: not JSON`, "set CHAINS to a JSON object: chainId -> {name, rpcUrl, seaportAddress, dropFactoryAddress, confirmations, nativeSymbol}")], chains: {} };
  }
  const rows = [];
  const usable = {};
  for (const [id, chain] of Object.entries(chains ?? {})) {
    const missing = ["name", "rpcUrl", "seaportAddress", "dropFactoryAddress"].filter((k) => typeof chain?.[k] !== "string" || chain[k] === "");
    const badAddress = ["seaportAddress", "dropFactoryAddress"].filter((k) => !missing.includes(k) && !isAddress(chain[k], { strict: false }));
    if (!/^\d+$/.test(id) || missing.length || badAddress.length) {
      const what = [...missing.map((k) => `no ${k}`), ...badAddress.map((k) => `${k} is not an address`), ...(/^\d+$/.test(id) ? [] : ["the key is not a chain id"])];
      rows.push(fail(`chain ${id}: config`, `${where}: ${what.join(", ")}`, `fix CHAINS["${id}"] in ${where}`));
    } else {
      usable[id] = chain;
    }
  }
  if (Object.keys(chains ?? {}).length === 0) rows.push(fail("CHAINS", `${where}: no chain configured`, "add at least one chain to CHAINS"));
  return { rows, chains: usable };
}

/**
 * One chain: its RPC answers with this chain id; Seaport 1.6 is at seaportAddress; the drop
 * implementation and the factory are this build's, the factory where CHAINS says.
 */
export async function checkChain(id, chain) {
  const label = `chain ${id}`;
  const client = createPublicClient({ transport: http(chain.rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 1 }) });
  const deploy = `npm run contracts:deploy -- --rpc <${chain.name} RPC> --chain-id ${id}`;
  let served;
  try {
    served = await client.getChainId();
  } catch (error) {
    const rows = [fail(`${label}: RPC`, `${rpcLabel(chain.rpcUrl)} did not answer (${rpcError(error)})`, `check CHAINS["${id}"].rpcUrl and that the node is up`)];
    return [...rows, ...contractRowNames(label).map((check) => skip(check, "not checked: no RPC"))];
  }
  if (served !== Number(id)) {
    const rows = [fail(`${label}: RPC`, `${rpcLabel(chain.rpcUrl)} serves chain ${served}, not ${id}`, `point CHAINS["${id}"].rpcUrl at a chain-${id} node`)];
    return [...rows, ...contractRowNames(label).map((check) => skip(check, `not checked: the RPC serves chain ${served}`))];
  }
  return [
    ok(`${label}: RPC`, `${rpcLabel(chain.rpcUrl)} serves chain ${id}`),
    await checkSeaport(label, client, Number(id), chain.seaportAddress),
    ...(await checkDropContracts(label, client, chain.dropFactoryAddress, deploy)),
  ];
}

/** viem's short message and its cause ("HTTP request failed: fetch failed"), without the URL it repeats. */
const rpcError = (error) => [error.shortMessage ?? error.message, error.details].filter(Boolean).join(": ");

const contractRowNames = (label) => [`${label}: Seaport 1.6`, `${label}: DropERC721 implementation`, `${label}: DropFactory`];

/**
 * Seaport is not built by this project on Soneium (its canonical deployment was compiled by
 * OpenSea with other settings), so it is checked by what it answers: its name, version 1.6, and
 * an EIP-712 domain that commits to this chain and this address.
 */
async function checkSeaport(label, client, chainId, address) {
  const check = `${label}: Seaport 1.6`;
  const fix = `set CHAINS["${chainId}"].seaportAddress to Seaport 1.6 on this chain (canonical: 0x0000000000000068F116a894984e2DB1123eB395)`;
  const code = await client.getCode({ address });
  if (!code || code === "0x") return fail(check, `no code at ${address}`, fix);
  const { abi } = loadArtifact("src/chain/artifacts/seaport.ts");
  try {
    const [name, [version, separator]] = await Promise.all([
      client.readContract({ address, abi, functionName: "name" }),
      client.readContract({ address, abi, functionName: "information" }),
    ]);
    const expected = domainSeparator({ domain: { name: "Seaport", version: "1.6", chainId, verifyingContract: getAddress(address) } });
    if (name !== "Seaport" || version !== "1.6") return fail(check, `${address} answers ${name} ${version}`, fix);
    if (separator.toLowerCase() !== expected.toLowerCase()) return fail(check, `${address}'s EIP-712 domain is not Seaport 1.6 on chain ${chainId} at this address`, fix);
    return ok(check, `${address} (version 1.6, domain for chain ${chainId})`);
  } catch (error) {
    return fail(check, `${address} does not answer as Seaport (${error.shortMessage ?? error.message})`, fix);
  }
}

async function checkDropContracts(label, client, configuredFactory, deploy) {
  const [implementation, factory] = dropContracts();
  const implementationRow = await contractRow(`${label}: DropERC721 implementation`, client, implementation, deploy);
  if (getAddress(configuredFactory) !== factory.address) {
    return [
      implementationRow,
      fail(
        `${label}: DropFactory`,
        `CHAINS dropFactoryAddress is ${configuredFactory}, this build's factory is ${factory.address}`,
        `set dropFactoryAddress to ${factory.address} in wrangler.toml, then ${deploy} if it is missing`,
      ),
    ];
  }
  return [implementationRow, await contractRow(`${label}: DropFactory`, client, factory, deploy)];
}

async function contractRow(check, client, contract, deploy) {
  const { status, detail } = await inspectContract(client, contract);
  if (status === "present") return ok(check, `${contract.address} (this build's code)`);
  if (status === "missing" && (await create2DeployerStatus(client)) !== "present") {
    return fail(check, `no code at ${contract.address}, and no CREATE2 deployer at ${CREATE2_DEPLOYER} to deploy it with`, "this chain needs the CREATE2 deployer before the drop contracts");
  }
  if (status === "missing") return fail(check, `no code at ${contract.address}`, `deploy it: ${deploy}`);
  return fail(check, `${contract.address}: ${detail}`, "the address holds other code: this build cannot use it (check the artifacts are this release's)");
}

/** ADMIN_TOKEN long enough for the service to accept it; WALLET_MNEMONIC a valid BIP-39 phrase. */
export function checkSecrets({ ADMIN_TOKEN, WALLET_MNEMONIC }, lookedIn, putCommand) {
  const rows = [];
  if (!ADMIN_TOKEN) rows.push(fail("secret ADMIN_TOKEN", `not set (looked in ${lookedIn})`, `generate one (openssl rand -base64 32) and ${putCommand("ADMIN_TOKEN")}`));
  else if (ADMIN_TOKEN.length < ADMIN_TOKEN_MIN_LENGTH) {
    rows.push(
      fail(
        "secret ADMIN_TOKEN",
        `${ADMIN_TOKEN.length} characters; the service refuses one shorter than ${ADMIN_TOKEN_MIN_LENGTH} (admin API and dashboard off)`,
        `use a longer one (openssl rand -base64 32) and ${putCommand("ADMIN_TOKEN")}`,
      ),
    );
  } else rows.push(ok("secret ADMIN_TOKEN", `${ADMIN_TOKEN.length} characters`));

  const phrase = WALLET_MNEMONIC?.trim().split(/\s+/).join(" ");
  if (!phrase) rows.push(fail("secret WALLET_MNEMONIC", `not set (looked in ${lookedIn})`, `${putCommand("WALLET_MNEMONIC")} with a BIP-39 phrase (keep a copy offline: it holds every project wallet)`));
  else if (!validateMnemonic(phrase, wordlist)) {
    rows.push(
      fail(
        "secret WALLET_MNEMONIC",
        `not a valid BIP-39 English phrase (${phrase.split(" ").length} words; a word outside the list or a bad checksum)`,
        `${putCommand("WALLET_MNEMONIC")} with the exact phrase; changing it changes every project wallet`,
      ),
    );
  } else rows.push(ok("secret WALLET_MNEMONIC", `valid BIP-39 phrase (${phrase.split(" ").length} words)`));
  return rows;
}

/** PUBLIC_URL must be https; http only to a loopback host, and only on the local environment. */
export function checkPublicUrl(value, { local }) {
  const check = "PUBLIC_URL";
  const fix = local ? "set PUBLIC_URL to an https origin (http only for 127.0.0.1, localhost or [::1])" : "set PUBLIC_URL in this environment's [vars] to the Worker's https origin";
  let url;
  try {
    url = new URL(value ?? "");
  } catch {
    return fail(check, `not a URL: ${JSON.stringify(value ?? "")}`, fix);
  }
  // wrangler.toml's environments ship a host under .invalid (RFC 2606) until the operator sets one.
  if (url.hostname.endsWith(".invalid")) return fail(check, `${url.origin} is wrangler.toml's placeholder`, fix);
  if (url.protocol === "https:") return ok(check, url.origin);
  if (url.protocol === "http:" && local && LOOPBACK_HOSTS.has(url.hostname)) return ok(check, `${url.origin} (loopback, local only)`);
  const why = url.protocol === "http:" ? (local ? "http to a host that is not loopback" : "http outside local development") : `${url.protocol} is not https`;
  return fail(check, `${value}: ${why}; drop base URIs written on chain start with it and cannot change later`, fix);
}

/** D1 and KV ids still the all-zero placeholders wrangler.toml ships. */
export function checkResourceIds(config, envLabel) {
  const placeholders = [
    ...config.d1_databases.filter((d) => /^0{8}-0{4}-0{4}-0{4}-0{12}$/.test(d.database_id ?? "")).map((d) => `D1 ${d.binding} (${d.database_name}): npx wrangler d1 create ${d.database_name}`),
    ...config.kv_namespaces.filter((k) => /^0{32}$/.test(k.id ?? "")).map((k) => `KV ${k.binding}: npx wrangler kv namespace create ${k.binding} ${envLabel.flag}`),
  ];
  if (placeholders.length === 0) return [ok("resource ids", `D1 and KV ids set in ${envLabel.where}`)];
  return [fail("resource ids", `placeholder ids in ${envLabel.where}: ${placeholders.map((p) => p.split(":")[0]).join(", ")}`, `create them and paste the ids into ${envLabel.where}: ${placeholders.map((p) => p.split(": ")[1]).join("; ")}`)];
}

/**
 * Every migration file applied: asks wrangler (`d1 migrations list`), which lists the ones not
 * yet applied, locally from the persisted state or remotely through Cloudflare's API.
 */
export async function checkMigrations({ root, migrationsDir, wranglerArgs, applyCommand, environ }) {
  const check = "D1 migrations";
  const files = readdirSync(path.resolve(root, migrationsDir)).filter((f) => f.endsWith(".sql")).sort();
  const run = await runWrangler(root, ["d1", "migrations", "list", "DB", ...wranglerArgs], environ);
  if (run.code !== 0) {
    return fail(check, `wrangler could not list them: ${run.error}`, wranglerArgs.includes("--remote")
      ? "this check needs Cloudflare's API: set CLOUDFLARE_API_TOKEN (or run npx wrangler login) on a machine with network, and check the database_id"
      : "run npm run dev once (it creates the local database), or pass --persist-to <dir>");
  }
  const pending = files.filter((f) => run.output.includes(f));
  if (pending.length === 0) return ok(check, `all ${files.length} applied`);
  return fail(check, `${pending.length} of ${files.length} not applied: ${pending.slice(0, 3).join(", ")}${pending.length > 3 ? ", …" : ""}`, `run ${applyCommand}`);
}

function runWrangler(root, args, environ) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, "node_modules", "wrangler", "bin", "wrangler.js"), ...args], {
      cwd: root,
      env: { ...environ, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", NO_COLOR: "1", FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), WRANGLER_TIMEOUT_MS);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, output, error: firstError(output) ?? `exited ${code ?? "on a timeout"}` });
    });
  });
}

/** wrangler's own error line, without its colours. */
function firstError(output) {
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  return /\[ERROR\]\s*(.+)/.exec(plain)?.[1]?.trim();
}
