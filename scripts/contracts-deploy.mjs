#!/usr/bin/env node
// npm run contracts:deploy -- --rpc <url> [--chain-id <id>] [--dry-run]
//
// Deploys the drop contracts (the DropERC721 implementation and the DropFactory) through the
// CREATE2 deployer, from the key in DEPLOYER_PRIVATE_KEY. Prints the plan (each contract, its
// address, present or missing), stops before sending anything when the chain is not the one
// expected, has no CREATE2 deployer or the deployer cannot pay, deploys what is missing, checks
// the code after, and prints the address CHAINS needs. What is already there is left alone, so a
// second run sends nothing. The key is never printed, nor any message that contains it.
import { parseArgs } from "node:util";
import { createPublicClient, createWalletClient, defineChain, formatEther, formatGwei, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { CREATE2_DEPLOYER } from "./lib/create2.mjs";
import { rpcLabel } from "./lib/rpc-label.mjs";
import { DeployError, confirmDeployments, estimateDeployments, inspectDropContracts, sendDeployments } from "./lib/drop-contracts.mjs";

const USAGE = "usage: DEPLOYER_PRIVATE_KEY=0x… npm run contracts:deploy -- --rpc <url> [--chain-id <id>] [--dry-run]";
const rawKey = process.env.DEPLOYER_PRIVATE_KEY?.trim() || undefined;

function parseOptions() {
  const { values } = parseArgs({
    options: { rpc: { type: "string" }, "chain-id": { type: "string" }, "dry-run": { type: "boolean", default: false }, help: { type: "boolean", default: false } },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (!values.rpc) throw new DeployError("usage", `--rpc is required\n${USAGE}`);
  if (!URL.canParse(values.rpc)) throw new DeployError("usage", "--rpc is not a URL");
  const chainId = values["chain-id"] === undefined ? undefined : Number(values["chain-id"]);
  if (chainId !== undefined && !Number.isSafeInteger(chainId)) throw new DeployError("usage", `--chain-id must be a number\n${USAGE}`);
  return { rpcUrl: values.rpc, chainId, dryRun: values["dry-run"] };
}


function deployerAccount() {
  if (!rawKey) return undefined;
  const hex = rawKey.startsWith("0x") ? rawKey : `0x${rawKey}`;
  if (!/^0x[0-9a-fA-F]{64}$/.test(hex)) throw new DeployError("bad_key", "DEPLOYER_PRIVATE_KEY is not a private key (32 bytes of hex)");
  return privateKeyToAccount(hex);
}

async function connect(rpcUrl, expectedChainId) {
  const transport = http(rpcUrl, { retryCount: 1 });
  let chainId;
  try {
    chainId = await createPublicClient({ transport }).getChainId();
  } catch (error) {
    throw new DeployError("rpc_unreachable", `the RPC at ${rpcLabel(rpcUrl)} did not answer eth_chainId (${error.shortMessage ?? error.message})`);
  }
  if (expectedChainId !== undefined && chainId !== expectedChainId) {
    throw new DeployError("chain_id_mismatch", `the RPC at ${rpcLabel(rpcUrl)} serves chain ${chainId}, not ${expectedChainId} (--chain-id): check --rpc`);
  }
  const chain = defineChain({ id: chainId, name: `chain ${chainId}`, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });
  return { chain, transport, client: createPublicClient({ chain, transport, pollingInterval: 500 }) };
}

function printPlan(contracts) {
  const width = Math.max(...contracts.map((c) => c.name.length));
  const action = { present: "present, expected code: skip", missing: "missing: deploy", different: "DIFFERENT CODE" };
  console.log(`\n  ${"contract".padEnd(width)}  ${"address".padEnd(42)}  status`);
  for (const c of contracts) console.log(`  ${c.name.padEnd(width)}  ${c.address}  ${action[c.status]}${c.detail ? ` (${c.detail})` : ""}`);
  console.log("");
}

async function main() {
  const { rpcUrl, chainId: expectedChainId, dryRun } = parseOptions();
  const account = deployerAccount();
  const { chain, transport, client } = await connect(rpcUrl, expectedChainId);
  console.log(`contracts:deploy: chain ${chain.id} at ${rpcLabel(rpcUrl)}, through the CREATE2 deployer ${CREATE2_DEPLOYER}`);

  const contracts = await inspectDropContracts(client);
  printPlan(contracts);
  const different = contracts.find((c) => c.status === "different");
  if (different) throw new DeployError("unexpected_code", `${different.name} at ${different.address} holds other code (${different.detail}): nothing sent`);
  const missing = contracts.filter((c) => c.status === "missing");
  const factory = contracts.find((c) => c.key === "dropFactoryAddress");
  if (missing.length === 0) {
    console.log("Nothing to deploy: every contract is there with the expected code.");
    console.log(`CHAINS["${chain.id}"].dropFactoryAddress = "${factory.address}"`);
    return;
  }
  if (!account) throw new DeployError("no_key", `DEPLOYER_PRIVATE_KEY is not set: it must hold the key of a funded account on chain ${chain.id}`);

  const estimate = await estimateDeployments(client, account, missing);
  const balance = await client.getBalance({ address: account.address });
  const gas = estimate.deployments.reduce((sum, d) => sum + d.gas, 0n);
  const l1Fee = estimate.deployments.reduce((sum, d) => sum + d.l1Fee, 0n);
  console.log(`Deployer ${account.address}: ${formatEther(balance)} ETH`);
  console.log(
    `Cost: at most ${formatEther(estimate.maxCost)} ETH (${gas} gas at up to ${formatGwei(estimate.fees.maxFeePerGas)} gwei${l1Fee > 0n ? ` + ${formatEther(l1Fee)} ETH L1 data fee` : ""})`,
  );
  if (balance < estimate.maxCost) {
    throw new DeployError(
      "insufficient_balance",
      `the deployer ${account.address} holds ${formatEther(balance)} ETH but the deployments can cost up to ${formatEther(estimate.maxCost)} ETH: send it at least ${formatEther(estimate.maxCost - balance)} ETH more on chain ${chain.id}, then run again (nothing was sent)`,
    );
  }
  if (dryRun) {
    console.log(`--dry-run: would deploy ${missing.map((c) => c.name).join(" and ")}; nothing sent.`);
    return;
  }

  const wallet = createWalletClient({ account, chain, transport });
  const sent = await sendDeployments(client, wallet, estimate);
  for (const { contract, hash } of sent) console.log(`• ${contract.name}: sent ${hash}`);
  for (const { contract, blockNumber } of await confirmDeployments(client, sent)) {
    console.log(`• ${contract.name}: mined in block ${blockNumber}, code verified at ${contract.address}`);
  }
  console.log(`\nDone: ${sent.length} deployed, ${contracts.length - sent.length} already present.`);
  console.log(`CHAINS["${chain.id}"].dropFactoryAddress = "${factory.address}"`);
}

/** Whatever is printed about a failure, without the key in any form. */
function redact(text) {
  const bare = rawKey?.replace(/^0x/i, "");
  // A value this short is no key (it was refused as such) and would mangle the message.
  if (!bare || bare.length < 16) return text;
  return [bare, bare.toLowerCase(), bare.toUpperCase()].reduce((out, form) => out.split(form).join("[redacted]"), text);
}

main().catch((error) => {
  const message = error instanceof DeployError ? error.message : (error.shortMessage ?? error.message ?? String(error));
  process.stderr.write(`contracts:deploy failed: ${redact(message)}\n`);
  process.exit(1);
});
