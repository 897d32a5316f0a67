// A provider that caps the addresses per eth_getLogs filter refuses every block for the full list.
// The first refused block is read part by part; the rest of the run must send parts that size,
// over the full block span, instead of being refused and split again block by block (decision 78).
import { env } from "cloudflare:workers";
import { encodeFunctionData, toEventSelector, type Abi, type Address } from "viem";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ChainUnavailableError } from "../../src/chain/chain-unavailable";
import { getChain } from "../../src/lib/chains";
import { ADDRESSES_PER_CALL, indexerConfig } from "../../src/services/indexer/config";
import { RunState } from "../../src/services/indexer/range-reader";
import { baselineErc721Abi, baselineErc721Bytecode } from "../contracts/artifacts/baseline-erc721";
import { randomHash, uniqueAddress } from "../fixtures/seed";
import { chainClient } from "../helpers/chain";
import { interceptFetch } from "../helpers/fetch-spy";
import { fundedAccount } from "../helpers/indexer";
import { seaportAddress } from "../helpers/seaport-basic-order";

afterEach(() => vi.restoreAllMocks());

const APPROVAL_FOR_ALL = toEventSelector("event ApprovalForAll(address indexed owner, address indexed operator, bool approved)");
const word = (address: string) => `0x${"00".repeat(12)}${address.slice(2)}`;

/** A JSON-RPC log as a node sends it: `topic0` from `owner` to `operator`, in block `blockNumber`. */
const rpcLog = (log: { address: string; topic0?: string; owner: string; operator: string; blockNumber: number; blockHash: string; logIndex: number }) => ({
  address: log.address,
  topics: [log.topic0 ?? APPROVAL_FOR_ALL, word(log.owner), word(log.operator)],
  data: `0x${"00".repeat(31)}01`,
  blockNumber: `0x${log.blockNumber.toString(16)}`,
  blockHash: log.blockHash,
  transactionHash: randomHash(),
  transactionIndex: "0x0",
  logIndex: `0x${log.logIndex.toString(16)}`,
  removed: false,
});

describe("a run reading logs from a provider that takes one address per filter", () => {
  it("reads the blocks after the first refused one in one call per address, and misses no log", async () => {
    const minter = await fundedAccount();
    const contracts = [
      (await minter.deploy(baselineErc721Abi as Abi, baselineErc721Bytecode)).address,
      (await minter.deploy(baselineErc721Abi as Abi, baselineErc721Bytecode)).address,
    ];
    const blocks: number[] = [];
    for (const contract of [...contracts, ...contracts, ...contracts]) {
      const mint = encodeFunctionData({ abi: baselineErc721Abi, functionName: "mintTo", args: [minter.account.address as Address, 2n] });
      blocks.push(Number((await minter.send({ to: contract, data: mint })).blockNumber));
    }
    const [from, to] = [Math.min(...blocks), Math.max(...blocks)];
    const addresses = [...contracts, seaportAddress().toLowerCase()];
    const rpcUrl = getChain(env, 1868).rpcUrl;
    const everyLog = (await new RunState(indexerConfig(env), Date.now()).read(rpcUrl, addresses, from, to)).logs;
    expect(everyLog.filter((log) => contracts.includes(log.address.toLowerCase()))).toHaveLength(12);

    const calls: { addresses: number; refused: boolean }[] = [];
    interceptFetch(async ({ body }, pass) => {
      const request = body ? (JSON.parse(body) as { id: number; method: string; params: [{ address: string[] }] }) : null;
      if (request?.method !== "eth_getLogs") return pass();
      const refused = request.params[0].address.length > 1;
      calls.push({ addresses: request.params[0].address.length, refused });
      return refused ? Response.json({ jsonrpc: "2.0", id: request.id, error: { code: -32005, message: "too many addresses in filter" } }) : pass();
    });
    const run = new RunState(indexerConfig(env), Date.now());
    const first = await run.read(rpcUrl, addresses, from, to);
    expect(first.to).toBe(from);
    const callsForFirstBlock = calls.length;

    const rest = await run.read(rpcUrl, addresses, from + 1, to);
    expect(rest.to).toBe(to);
    expect(calls.slice(callsForFirstBlock)).toEqual(addresses.map(() => ({ addresses: 1, refused: false })));
    expect([...first.logs, ...rest.logs].map((log) => [log.blockNumber, log.logIndex])).toEqual(everyLog.map((log) => [log.blockNumber, log.logIndex]));
  });

  it("learns nothing when the node took a part as large as one it refused (a result cap, not an address cap)", async () => {
    const head = Number(await chainClient().getBlockNumber({ cacheTime: 0 }));
    const [busy, alsoBusy] = [uniqueAddress(), uniqueAddress()];
    const addresses = [busy, alsoBusy, uniqueAddress(), uniqueAddress(), uniqueAddress()];
    // Too many results whenever both busy contracts are in one filter: [all five] and [busy, alsoBusy,
    // x] and [busy, alsoBusy] are refused, while [y, z], as large as the smallest refused, is read.
    interceptFetch(async ({ body }, pass) => {
      const request = body ? (JSON.parse(body) as { id: number; method: string; params: [{ address: string[] }] }) : null;
      if (request?.method !== "eth_getLogs" || !(request.params[0].address.includes(busy) && request.params[0].address.includes(alsoBusy))) return pass();
      return Response.json({ jsonrpc: "2.0", id: request.id, error: { code: -32005, message: "query returned more than 10000 results" } });
    });
    const run = new RunState(indexerConfig(env), Date.now());
    expect((await run.read(getChain(env, 1868).rpcUrl, addresses, head - 3, head)).to).toBe(head - 3);
    expect(run.addressesPerCall).toBe(ADDRESSES_PER_CALL);
  });

  it("reads a range again next run when its parts come from two forks (a load-balanced RPC)", async () => {
    const [a, b] = [uniqueAddress(), uniqueAddress()];
    const logAt = (address: string, blockHash: string, logIndex: number) => rpcLog({ address, owner: a, operator: b, blockNumber: 5, blockHash, logIndex });
    // Each address alone, each answered from another fork of block 5.
    const forks = { [a]: logAt(a, randomHash(), 0), [b]: logAt(b, randomHash(), 1) };
    interceptFetch(async ({ body }, pass) => {
      const request = body ? (JSON.parse(body) as { id: number; method: string; params: [{ address: string[] }] }) : null;
      if (request?.method !== "eth_getLogs") return pass();
      const [only, ...more] = request.params[0].address;
      if (more.length) return Response.json({ jsonrpc: "2.0", id: request.id, error: { code: -32005, message: "one address per filter" } });
      return Response.json({ jsonrpc: "2.0", id: request.id, result: [forks[only!]] });
    });
    const run = new RunState(indexerConfig(env), Date.now());
    await expect(run.read(getChain(env, 1868).rpcUrl, [a, b], 5, 5)).rejects.toThrow(ChainUnavailableError);
  });
});

describe("a block the node refuses even for one address (a provider's cap on results per call)", () => {
  const refusal = (id: number) => Response.json({ jsonrpc: "2.0", id, error: { code: -32005, message: "query returned more than 10000 results" } });
  type Request = { id: number; method: string; params: [{ address: string[]; fromBlock: string; toBlock: string }] | [string] };

  it("reads a busy address's logs from its receipts, the others with eth_getLogs, and goes on at full span", async () => {
    const minter = await fundedAccount();
    const contract = (await minter.deploy(baselineErc721Abi as Abi, baselineErc721Bytecode)).address;
    const mint = encodeFunctionData({ abi: baselineErc721Abi, functionName: "mintTo", args: [minter.account.address as Address, 2n] });
    const heavy = Number((await minter.send({ to: contract, data: mint })).blockNumber);
    const later = Number((await minter.send({ to: contract, data: mint })).blockNumber);
    const addresses = [contract, uniqueAddress(), seaportAddress().toLowerCase()];
    const rpcUrl = getChain(env, 1868).rpcUrl;
    const everyLog = (await new RunState(indexerConfig(env), Date.now()).read(rpcUrl, addresses, heavy, later)).logs;
    expect(everyLog.filter((log) => log.address.toLowerCase() === contract)).toHaveLength(4);

    // Too many results in `heavy` whenever the busy contract is in the filter, even alone.
    const receiptCalls: string[] = [];
    const heavyBlockReads: { addresses: number; refused: boolean }[] = [];
    interceptFetch(async ({ body }, pass) => {
      const request = body ? (JSON.parse(body) as Request) : null;
      if (request?.method === "eth_getBlockReceipts") receiptCalls.push(request.params[0] as string);
      if (request?.method !== "eth_getLogs") return pass();
      const filter = request.params[0] as { address: string[]; fromBlock: string; toBlock: string };
      if (Number(filter.fromBlock) > heavy || heavy > Number(filter.toBlock)) return pass();
      const refused = filter.address.includes(contract);
      if (filter.fromBlock === filter.toBlock) heavyBlockReads.push({ addresses: filter.address.length, refused });
      return refused ? refusal(request.id) : pass();
    });
    const config = indexerConfig(env);
    const run = new RunState(config, Date.now());
    const first = await run.read(rpcUrl, addresses, heavy, later);
    expect(first.to).toBe(heavy);
    expect(receiptCalls).toEqual([`0x${heavy.toString(16)}`]);
    // Halved down to the busy contract alone; the other two read as usual.
    expect(heavyBlockReads).toEqual([
      { addresses: 3, refused: true },
      { addresses: 2, refused: true },
      { addresses: 1, refused: true },
      { addresses: 1, refused: false },
      { addresses: 1, refused: false },
    ]);
    expect([run.span, run.addressesPerCall]).toEqual([config.blocksPerCall, ADDRESSES_PER_CALL]);

    const rest = await run.read(rpcUrl, addresses, heavy + 1, later);
    expect(rest.to).toBe(later);
    const position = (log: { address: string; blockNumber: bigint | null; logIndex: number | null }) => [log.address.toLowerCase(), log.blockNumber, log.logIndex];
    expect([...first.logs, ...rest.logs].map(position)).toEqual(everyLog.map(position));
  });

  it("keeps only the tracked addresses' indexed logs of the receipts, without splitting parts again, and stops the chain when receipts are refused too", async () => {
    const [tracked, alsoTracked, untracked] = [uniqueAddress(), uniqueAddress(), uniqueAddress()];
    const notIndexed = toEventSelector("event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)");
    const blockHash = randomHash();
    const logAt = (address: string, topic0: string, logIndex: number) => rpcLog({ address, topic0, owner: tracked, operator: untracked, blockNumber: 7, blockHash, logIndex });
    const receipts = [
      { blockNumber: "0x7", blockHash, status: "0x1", logs: [logAt(tracked, APPROVAL_FOR_ALL, 0), logAt(untracked, APPROVAL_FOR_ALL, 1)] },
      { blockNumber: "0x7", blockHash, status: "0x1", logs: [logAt(tracked, notIndexed, 2), logAt(alsoTracked, APPROVAL_FOR_ALL, 3)] },
    ];
    let receiptsRefused = false;
    let getLogsCalls = 0;
    interceptFetch(async ({ body }, pass) => {
      const request = body ? (JSON.parse(body) as Request) : null;
      if (request?.method === "eth_getLogs") return (getLogsCalls++, refusal(request.id));
      if (request?.method !== "eth_getBlockReceipts") return pass();
      if (receiptsRefused) return Response.json({ jsonrpc: "2.0", id: request.id, error: { code: -32601, message: "method not found" } });
      return Response.json({ jsonrpc: "2.0", id: request.id, result: receipts });
    });
    const rpcUrl = getChain(env, 1868).rpcUrl;
    // A node that refuses every eth_getLogs: [7..8], then [7] for both, for `tracked` alone, and
    // `alsoTracked` once more, answered from the receipts instead of split again.
    const run = new RunState(indexerConfig(env), Date.now());
    const { to, logs } = await run.read(rpcUrl, [tracked, alsoTracked], 7, 8);
    expect(logs.map((log) => [log.address, log.logIndex])).toEqual([
      [tracked, 0],
      [alsoTracked, 3],
    ]);
    expect([to, getLogsCalls]).toEqual([7, 4]);
    // It read no part of block 7: the run stays at one block a call rather than be refused down to it again.
    expect(run.span).toBe(1);

    receiptsRefused = true;
    const refused = new RunState(indexerConfig(env), Date.now()).read(rpcUrl, [tracked, alsoTracked], 7, 7);
    await expect(refused).rejects.toThrow(ChainUnavailableError);
    await expect(refused).rejects.toThrow(/refused block 7 for 0x[0-9a-f]{40} alone \(node error -32005\) and eth_getBlockReceipts was refused \(node error -32601\)/);
  });
});


describe("a provider that answers eth_getLogs as rate limited (HTTP 429 in the JSON-RPC body)", () => {
  it("stops the run as unavailable, for the next run to try again, instead of splitting the range into more calls", async () => {
    const head = Number(await chainClient().getBlockNumber());
    let logCalls = 0;
    interceptFetch(async ({ body }, pass) => {
      const request = body ? (JSON.parse(body) as { id: number; method: string }) : null;
      if (request?.method !== "eth_getLogs") return pass();
      logCalls++;
      return Response.json({ jsonrpc: "2.0", id: request.id, error: { code: 429, message: "Too Many Requests" } });
    });
    const read = new RunState(indexerConfig(env), Date.now()).read(getChain(env, 1868).rpcUrl, [seaportAddress().toLowerCase()], Math.max(0, head - 16), head);
    await expect(read).rejects.toBeInstanceOf(ChainUnavailableError);
    expect(logCalls).toBe(1);
  });
});
