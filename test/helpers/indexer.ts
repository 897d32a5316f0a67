// Chain actors and indexer plumbing for the indexer tests: fresh funded keys (parallel test
// files share one anvil, so no two files ever send from the same account), contract deploys,
// one indexer pass through the admin API, and table dumps to prove a re-read changes nothing.
import { env } from "cloudflare:workers";
import { createWalletClient, http, type Abi, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { expect } from "vitest";
import { chainClient, fund } from "./chain";
import { call } from "./http";

const devnet = {
  id: 1868,
  name: "devnet",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [""] } },
} as const;

export async function fundedAccount() {
  const account = privateKeyToAccount(generatePrivateKey());
  await fund(account.address);
  const wallet = createWalletClient({ account, chain: devnet, transport: http(env.RPC_URL) });
  const waitFor = async (hash: Hex) => {
    const receipt = await chainClient().waitForTransactionReceipt({ hash, pollingInterval: 100 });
    if (receipt.status !== "success") throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };
  return {
    account,
    /** Lower-case, as D1 stores addresses. */
    address: account.address.toLowerCase(),
    async send(tx: { to: string; data?: Hex; value?: bigint }) {
      return waitFor(await wallet.sendTransaction({ to: tx.to as Address, data: tx.data ?? "0x", value: tx.value ?? 0n }));
    },
    async deploy(abi: Abi, bytecode: Hex) {
      const receipt = await waitFor(await wallet.deployContract({ abi, bytecode }));
      return { address: receipt.contractAddress!.toLowerCase(), blockNumber: Number(receipt.blockNumber) };
    },
  };
}
export type FundedAccount = Awaited<ReturnType<typeof fundedAccount>>;

/** Resolves once the chain has mined a block after the current one (confirmations are 0 here). */
export async function nextBlock() {
  const client = chainClient();
  const start = await client.getBlockNumber({ cacheTime: 0 });
  while ((await client.getBlockNumber({ cacheTime: 0 })) <= start) await new Promise((resolve) => setTimeout(resolve, 200));
}

/** One indexer pass through POST /v1/admin/index; returns chain 1868's report. */
export async function runIndex() {
  const result = await call("/v1/admin/index", { method: "POST", admin: true });
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  const report = result.body.chains.find((c: { chainId: number }) => c.chainId === 1868);
  expect(report).toBeDefined();
  return report as { chainId: number; fromBlock: number; toBlock: number; logs: number };
}

/**
 * Every row of the tables the indexer writes, in a stable order. Claims are cut at `uptoBlock`:
 * other test files fill Seaport orders on the same chain, and later runs claim those logs too.
 */
export async function dumpIndexedTables(uptoBlock: number) {
  const dump: Record<string, unknown[]> = {};
  for (const [table, order] of [
    ["assets", "chain_id, contract_address, token_id"],
    ["ownerships", "chain_id, contract_address, token_id, owner_address"],
    ["orders", "order_hash"],
    ["sales", "chain_id, transaction_hash, log_index"],
  ] as const) {
    dump[table] = (await env.DB.prepare(`select * from ${table} order by ${order}`).all()).results;
  }
  dump.chain_events = (
    await env.DB.prepare("select * from chain_events where block_number <= ? order by chain_id, transaction_hash, log_index").bind(uptoBlock).all()
  ).results;
  return dump;
}
