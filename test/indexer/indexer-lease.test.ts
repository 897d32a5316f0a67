// A collection's catch-up reads happen only while the run holds the chain's lease: a run that
// lost it (its time ran out and another run took the chain) applies nothing more and records no
// progress for the collection, which the new holder owns now. The chain here is a label of its
// own (the real node behind it), so its cursor and lease are not those chain 1868's runs use.
import { env } from "cloudflare:workers";
import { encodeFunctionData, type Abi, type Address } from "viem";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { ChainConfig } from "../../src/lib/chains";
import { runBackfills } from "../../src/services/indexer/backfill";
import { indexerConfig } from "../../src/services/indexer/config";
import { acquireLease, ensureCursor } from "../../src/services/indexer/cursor";
import { RunState } from "../../src/services/indexer/range-reader";
import { baselineErc721Abi, baselineErc721Bytecode } from "../contracts/artifacts/baseline-erc721";
import { chainClient } from "../helpers/chain";
import { fundedAccount } from "../helpers/indexer";

const chain: ChainConfig = {
  chainId: 990_001,
  name: "lease-test",
  rpcUrl: env.RPC_URL,
  seaportAddress: "0x0000000000000000000000000000000000000000",
  dropFactoryAddress: "0x0000000000000000000000000000000000000000",
  confirmations: 0,
  nativeSymbol: "ETH",
};
const hour = 3_600_000;

async function collectionBehind(slug: string) {
  const deployer = await fundedAccount();
  const nft = await deployer.deploy(baselineErc721Abi as Abi, baselineErc721Bytecode);
  await deployer.send({ to: nft.address, data: encodeFunctionData({ abi: baselineErc721Abi, functionName: "mintTo", args: [deployer.address as Address, 2n] }) });
  const id = crypto.randomUUID();
  await env.DB.prepare(
    `insert into collections (id, slug, chain_id, contract_address, schema, tracked, backfill_next_block, created_at, updated_at)
     values (?, ?, ?, ?, 'ERC721', 1, ?, ?, ?)`,
  )
    .bind(id, slug, chain.chainId, nft.address, nft.blockNumber, Date.now(), Date.now())
    .run();
  return { id, contract: nft.address };
}

const progressOf = async (id: string) =>
  (await env.DB.prepare("select backfill_next_block as next from collections where id = ?").bind(id).first<{ next: number | null }>())!.next;
const assetsOf = async (contract: string) =>
  (await env.DB.prepare("select token_id from assets where chain_id = ? and contract_address = ? order by token_id").bind(chain.chainId, contract).all<{ token_id: string }>())
    .results.map((row) => row.token_id);

beforeAll(async () => {
  await ensureCursor(env.DB, chain.chainId, 0);
});

describe("collection backfills and the chain's lease", () => {
  it("stop at once, applying nothing and recording no progress, when the run no longer holds the lease", async () => {
    const { id, contract } = await collectionBehind("lease-lost");
    const before = await progressOf(id);
    expect(await acquireLease(env.DB, chain.chainId, "run-a", Date.now() + hour, Date.now())).not.toBeNull();
    // Another run takes the chain over (run A's lease expired while it was still reading).
    await env.DB.prepare("update indexer_cursors set lease_token = 'run-b' where chain_id = ?").bind(chain.chainId).run();

    const head = Number(await chainClient().getBlockNumber({ cacheTime: 0 }));
    const run = new RunState(indexerConfig(env), Date.now());
    const logs = await runBackfills(env.DB, chain, run, head, { token: "run-a", until: () => Date.now() + hour });

    expect(logs).toBe(0);
    expect(await assetsOf(contract)).toEqual([]);
    expect(await progressOf(id)).toBe(before);
    const lease = await env.DB.prepare("select lease_token from indexer_cursors where chain_id = ?").bind(chain.chainId).first();
    expect(lease).toEqual({ lease_token: "run-b" });
  });

  it("record no progress when the lease is lost while a range is being read", async () => {
    await env.DB.prepare("update collections set tracked = 0 where chain_id = ?").bind(chain.chainId).run(); // the earlier tests' collections
    await env.DB.prepare("update indexer_cursors set lease_token = 'run-d', lease_until = ? where chain_id = ?").bind(Date.now() + hour, chain.chainId).run();
    const { id } = await collectionBehind("lease-lost-mid-range");
    const before = await progressOf(id);
    const head = Number(await chainClient().getBlockNumber({ cacheTime: 0 }));
    const run = new RunState(indexerConfig(env), Date.now());
    const read = run.read.bind(run);
    // The range is slow: by the time its logs are in, another run has taken the chain over.
    vi.spyOn(run, "read").mockImplementation(async (...args) => {
      const logs = await read(...args);
      await env.DB.prepare("update indexer_cursors set lease_token = 'run-e' where chain_id = ?").bind(chain.chainId).run();
      return logs;
    });

    await runBackfills(env.DB, chain, run, head, { token: "run-d", until: () => Date.now() + hour });
    expect(run.read).toHaveBeenCalledTimes(1);
    // Clearing the field from this run's cursor would skip what the new holder's head pass read.
    expect(await progressOf(id)).toBe(before);
  });

  it("apply the collection's logs and join the head pass while the run holds it", async () => {
    await env.DB.prepare("update indexer_cursors set lease_token = 'run-c', lease_until = ? where chain_id = ?").bind(Date.now() + hour, chain.chainId).run();
    await env.DB.prepare("update collections set tracked = 0 where chain_id = ?").bind(chain.chainId).run(); // the earlier tests' collections
    const { id, contract } = await collectionBehind("lease-held");
    const head = Number(await chainClient().getBlockNumber({ cacheTime: 0 }));
    const run = new RunState(indexerConfig(env), Date.now());
    const renewedUntil = Date.now() + 2 * hour;
    const logs = await runBackfills(env.DB, chain, run, head, { token: "run-c", until: () => renewedUntil });

    expect(logs).toBe(2);
    expect(await assetsOf(contract)).toEqual(["0", "1"]);
    expect(await progressOf(id)).toBeNull();
    const lease = await env.DB.prepare("select lease_token, lease_until from indexer_cursors where chain_id = ?").bind(chain.chainId).first();
    expect(lease).toEqual({ lease_token: "run-c", lease_until: renewedUntil });
  });
});
