// npm run contracts:deploy against fresh anvils standing in for a chain: the plan, the deploy,
// a second run that sends nothing, and every refusal before a transaction goes out. The key
// must never appear in what the command prints.
import { createPublicClient, http, keccak256, toHex, type Hex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterEach, describe, expect, it } from "vitest";
import { ANVIL_TEST_MNEMONIC, freePort, startAnvil, type AnvilHandle } from "../../scripts/lib/anvil.mjs";
import { CREATE2_DEPLOYER } from "../../scripts/lib/create2.mjs";
import { dropContracts, inspectContract } from "../../scripts/lib/drop-contracts.mjs";
import { runScript } from "./run-script";

const funded = mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: 9 });
const FUNDED_KEY = toHex(funded.getHdKey().privateKey!);
const anvils: AnvilHandle[] = [];

async function chain(extraArgs: string[] = []) {
  const anvil = await startAnvil({ blockTime: 0, extraArgs });
  anvils.push(anvil);
  return { anvil, client: createPublicClient({ transport: http(anvil.url) }) };
}

const deploy = (rpcUrl: string, key: string | undefined, ...args: string[]) => runScript("contracts-deploy.mjs", ["--rpc", rpcUrl, ...args], { DEPLOYER_PRIVATE_KEY: key });

function expectNoKey(output: string, key: string) {
  const bare = key.replace(/^0x/, "");
  expect(output.toLowerCase().includes(bare.toLowerCase()), "the key was printed").toBe(false);
}

afterEach(async () => {
  await Promise.all(anvils.splice(0).map((a) => a.stop()));
});

describe("contracts:deploy", () => {
  it("prints the plan, deploys what is missing, verifies it, and a second run sends nothing", async () => {
    const { anvil, client } = await chain();
    const [implementation, factory] = dropContracts();

    const first = await deploy(anvil.url, FUNDED_KEY);
    expect(first.code, first.output).toBe(0);
    expect(first.stdout).toContain(`chain 1868 at ${anvil.url}`);
    expect(first.stdout).toMatch(new RegExp(`DropERC721 implementation +${implementation!.address} +missing: deploy`));
    expect(first.stdout).toMatch(new RegExp(`DropFactory +${factory!.address} +missing: deploy`));
    expect(first.stdout).toContain(`code verified at ${factory!.address}`);
    expect(first.stdout).toContain("Done: 2 deployed, 0 already present.");
    expect(first.stdout).toContain(`CHAINS["1868"].dropFactoryAddress = "${factory!.address}"`);
    expectNoKey(first.output, FUNDED_KEY);
    for (const contract of [implementation!, factory!]) expect(await inspectContract(client, contract)).toEqual({ status: "present" });
    const nonce = await client.getTransactionCount({ address: funded.address });
    expect(nonce).toBe(2);

    const second = await deploy(anvil.url, FUNDED_KEY, "--chain-id", "1868");
    expect(second.code, second.output).toBe(0);
    expect(second.stdout).toMatch(new RegExp(`DropFactory +${factory!.address} +present, expected code: skip`));
    expect(second.stdout).toContain("Nothing to deploy");
    expect(await client.getTransactionCount({ address: funded.address })).toBe(nonce);
    expectNoKey(second.output, FUNDED_KEY);
  });

  it("--dry-run prints the plan and the cost and sends nothing", async () => {
    const { anvil, client } = await chain();
    const run = await deploy(anvil.url, FUNDED_KEY, "--dry-run");
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toMatch(/Cost: at most [0-9.]+ ETH/);
    expect(run.stdout).toContain("--dry-run: would deploy DropERC721 implementation and DropFactory; nothing sent.");
    expect(await client.getTransactionCount({ address: funded.address })).toBe(0);
  });

  it("refuses a chain other than --chain-id", async () => {
    const { anvil, client } = await chain();
    const run = await deploy(anvil.url, FUNDED_KEY, "--chain-id", "1946");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`contracts:deploy failed: the RPC at ${anvil.url} serves chain 1868, not 1946 (--chain-id): check --rpc`);
    expect(await client.getTransactionCount({ address: funded.address })).toBe(0);
    expectNoKey(run.output, FUNDED_KEY);
  });

  it("stops when the chain has no CREATE2 deployer", async () => {
    const { anvil, client } = await chain(["--disable-default-create2-deployer"]);
    const run = await deploy(anvil.url, FUNDED_KEY);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`this chain has no CREATE2 deployer at ${CREATE2_DEPLOYER}`);
    expect(await client.getTransactionCount({ address: funded.address })).toBe(0);
  });

  it("stops before sending when the deployer cannot pay, and never prints its key", async () => {
    const { anvil, client } = await chain();
    const poorKey = keccak256(toHex("contracts-deploy test: an empty account"));
    const poor = privateKeyToAccount(poorKey);
    const run = await deploy(anvil.url, poorKey);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`Deployer ${poor.address}: 0 ETH`);
    expect(run.stderr).toMatch(new RegExp(`the deployer ${poor.address} holds 0 ETH but the deployments can cost up to [0-9.]+ ETH: send it at least [0-9.]+ ETH more on chain 1868`));
    expect(run.stderr).toContain("nothing was sent");
    expectNoKey(run.output, poorKey);
    for (const contract of dropContracts()) expect(await inspectContract(client, contract)).toEqual({ status: "missing" });
  });

  it("refuses a malformed key without echoing it, and a missing one when something must be deployed", async () => {
    const { anvil } = await chain();
    const malformed = `${FUNDED_KEY}ff`;
    const bad = await deploy(anvil.url, malformed);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("DEPLOYER_PRIVATE_KEY is not a private key (32 bytes of hex)");
    expectNoKey(bad.output, malformed);

    const none = await deploy(anvil.url, undefined);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain("missing: deploy");
    expect(none.stderr).toContain("DEPLOYER_PRIVATE_KEY is not set");
  });

  it("says which RPC did not answer, without its path", async () => {
    const url = `http://127.0.0.1:${await freePort()}/v2/provider-api-key`;
    const run = await deploy(url, FUNDED_KEY as Hex);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/the RPC at http:\/\/127\.0\.0\.1:\d+\/… did not answer eth_chainId/);
    expect(run.output).not.toContain("provider-api-key");
  });
});
