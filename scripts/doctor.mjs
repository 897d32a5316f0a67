#!/usr/bin/env node
// npm run doctor [-- --env staging|production] [--secrets-file <file>] [--persist-to <dir>] [--config <wrangler.toml>]
//
// Checks one environment before users find out it is wrong: per configured chain, the RPC
// serves that chain id, Seaport 1.6 and this build's DropERC721 implementation and DropFactory
// are there; then ADMIN_TOKEN and WALLET_MNEMONIC, the D1 ids and migrations, and PUBLIC_URL.
// Prints one table and a line per failure saying what to do; exits 0 when all pass, else 1.
// Where each input comes from: scripts/lib/doctor.mjs.
import { parseArgs } from "node:util";
import { renderReport, runDoctor } from "./lib/doctor.mjs";

const USAGE = "usage: npm run doctor [-- --env staging|production] [--secrets-file <file>] [--persist-to <dir>] [--config <wrangler.toml>]";

async function main() {
  const { values } = parseArgs({
    options: {
      env: { type: "string" },
      "secrets-file": { type: "string" },
      "persist-to": { type: "string" },
      config: { type: "string" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const report = await runDoctor({
    env: values.env,
    secretsFile: values["secrets-file"],
    ...(values["persist-to"] ? { persistTo: values["persist-to"] } : {}),
    ...(values.config ? { configPath: values.config } : {}),
  });
  process.stdout.write(renderReport(report));
  return report.rows.some((row) => row.status === "fail") ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    process.stderr.write(`doctor could not run: ${error.message}\n${USAGE}\n`);
    process.exit(1);
  },
);
