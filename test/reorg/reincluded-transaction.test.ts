// A reorg can bring a transaction back in another block, after other logs, so its logs get other
// log indexes. The receipt path applies a buy's logs at its first receipt; the indexer reads the
// new block later. Claims keyed by (transaction, log index) alone would let the indexer apply
// the buy a second time: a second sale row, doubled volume. Decision 75. (The indexer skips such a
// transaction before claiming anything; test/indexer/log-claims.test.ts checks the claim rule.)
// Its ERC-721 ownership rows then take the new position, so a later transfer of the token in the
// new chain is not taken for an older one (decision 92). One file: anvil_reorg rewrites the
// chain's recent blocks, which a parallel file's transactions would be lost with.
import { env } from "cloudflare:workers";
import { createWalletClient, encodeFunctionData, http, keccak256, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { dropErc721Abi } from "../../src/chain/artifacts/drop-erc721";
import { chainClient, ETHER, fund, ownerOf, rpc, waitForTransaction } from "../helpers/chain";
import { claimConfirmed, deployConfirmedDrop, setApprovalForAll } from "../helpers/drops";
import { call } from "../helpers/http";
import { nextBlock, runIndex } from "../helpers/indexer";
import { createTestProject, type TestProject } from "../helpers/projects";
import { seaportAddress } from "../helpers/seaport-basic-order";
import { listingComponents, viemSignOrder } from "../helpers/seaport";
import { freshWallet } from "../helpers/wallets";

const devnet = { id: 1868, name: "devnet", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [""] } } } as const;

let creator: TestProject;
let buyer: TestProject;
let seller: Awaited<ReturnType<typeof freshWallet>>;
let contract: string;
let logEmitters: Hex[];

beforeAll(async () => {
  [creator, buyer] = await Promise.all([createTestProject("Reorg creator"), createTestProject("Reorg buyer")]);
  await fund(buyer.walletAddress);
  seller = await freshWallet();
  contract = (await deployConfirmedDrop(creator, { name: "Reorged", metadataStorageType: "self-hosted", baseUri: "https://example.com/reorg/" })).contractAddress;
  await claimConfirmed(creator, { contractAddress: contract, recipientAddress: seller.address, quantity: 1 });
  await setApprovalForAll(seller, contract, seaportAddress());
  logEmitters = await signedLogEmitters(); // funded now: the reorg rolls back balances set after the buy's parent block
  await runIndex(); // the cursor starts before the buy's block
});

/**
 * Two signed, unsent transactions that log from the drop (an ApprovalForAll each), paying a high
 * tip so anvil orders them first. Two, so that none of the buy's new log indexes is one of its old.
 */
async function signedLogEmitters(): Promise<Hex[]> {
  const account = privateKeyToAccount(generatePrivateKey());
  await fund(account.address);
  const wallet = createWalletClient({ account, chain: devnet, transport: http(env.RPC_URL) });
  const operators = ["0x000000000000000000000000000000000000dEaD", "0x000000000000000000000000000000000000bEEF"] as const;
  return Promise.all(
    operators.map((operator, nonce) =>
      wallet.signTransaction({
        to: contract as Address,
        data: encodeFunctionData({ abi: dropErc721Abi, functionName: "setApprovalForAll", args: [operator, true] }),
        nonce,
        gas: 100_000n,
        maxFeePerGas: 1_000n * 10n ** 9n,
        maxPriorityFeePerGas: 100n * 10n ** 9n,
      }),
    ),
  );
}

describe("a transaction a reorg brings back in another block", () => {
  it("is applied once: the indexer does not record the receipt path's sale again at the new log indexes", async () => {
    const price = ETHER / 5n;
    const parameters = listingComponents(seller.address, contract, "1", price);
    const signature = await viemSignOrder(seller, parameters, { chainId: 1868, verifyingContract: seaportAddress() });
    const listed = await call("/v1/orders", { apiKey: buyer.apiKey, body: { signature, parameters, chainId: 1868 } });
    expect(listed.status, JSON.stringify(listed.body)).toBe(201);
    const bought = await call("/v1/project-wallet/orders/buy", { secretKey: buyer.secretKey, body: { chainId: 1868, orderHashes: [listed.body.orderHash] } });
    const settled = await waitForTransaction(bought.body[0].result[0].result.id, buyer.apiKey);
    expect(settled.status).toBe("confirmed");
    const hash = settled.transactionHash as Hex;
    const first = await chainClient().getTransactionReceipt({ hash });

    // Replace the buy's block and those after it, the buy mined again at the same height behind
    // two other logs. Mining pauses meanwhile, or a block mined after the head is read would keep
    // the buy's block out of the reorg.
    const raw = await rpc<Hex>("eth_getRawTransactionByHash", [hash]);
    await rpc("evm_setIntervalMining", [0]);
    try {
      const head = await chainClient().getBlockNumber({ cacheTime: 0 });
      await rpc("anvil_reorg", [Number(head - first.blockNumber) + 1, [...logEmitters.map((emitter) => [emitter, 0]), [raw, 0]]]);
    } finally {
      await rpc("evm_setIntervalMining", [1]);
    }
    const again = await chainClient().getTransactionReceipt({ hash });
    expect(again.blockNumber).toBe(first.blockNumber);
    expect(again.blockHash).not.toBe(first.blockHash);
    const oldIndexes = first.logs.map((log) => log.logIndex);
    expect(Math.min(...again.logs.map((log) => log.logIndex))).toBeGreaterThan(Math.max(...oldIndexes));

    const report = await runIndex();
    expect(report.toBlock).toBeGreaterThanOrEqual(Number(again.blockNumber));

    const sales = await env.DB.prepare("select price, block_number from sales where transaction_hash = ?").bind(hash.toLowerCase()).all();
    expect(sales.results).toEqual([{ price: price.toString(), block_number: Number(first.blockNumber) }]);
    const trending = await call("/v1/collections/trending?period=1h", { apiKey: buyer.apiKey });
    const entry = trending.body.data.find((e: { collection: { contractAddress: string } }) => e.collection.contractAddress === contract);
    expect(entry).toMatchObject({ volume: price.toString(), sales: 1 });
    const claims = await env.DB.prepare("select log_index from chain_events where transaction_hash = ? order by log_index").bind(hash.toLowerCase()).all();
    expect(claims.results.map((row) => row.log_index)).toEqual(oldIndexes);
    expect((await ownerOf(contract, 1n)).toLowerCase()).toBe(buyer.walletAddress.toLowerCase());
    const owned = await call(`/v1/assets/explore?ownerAddress=${buyer.walletAddress}`, { apiKey: buyer.apiKey });
    expect(owned.body.data.map((a: { tokenId: string }) => a.tokenId)).toEqual(["1"]);
  });
});

describe("an ERC-721 transfer a reorg brings back in an earlier block", () => {
  it("moves its ownership row to the new position, so the holder's next transfer in the new chain is applied", async () => {
    const holder = await freshWallet();
    const receiver = (await freshWallet()).address;
    // Nothing of ours in the block before the claim's: the reorg re-mines the claim there.
    await nextBlock();
    await nextBlock();
    const [tokenId] = await claimConfirmed(creator, { contractAddress: contract, recipientAddress: holder.address, quantity: 1 });
    const claim = await env.DB.prepare("select transaction_hash from transactions where project_id = ? and status = 'confirmed' order by created_at desc limit 1")
      .bind(creator.id)
      .first<{ transaction_hash: Hex }>();
    const first = await chainClient().getTransactionReceipt({ hash: claim!.transaction_hash });
    const owned = () => env.DB.prepare("select owner_address, block_number, log_index from ownerships where contract_address = ? and token_id = ?").bind(contract.toLowerCase(), tokenId).first();
    expect(await owned()).toMatchObject({ owner_address: holder.address, block_number: Number(first.blockNumber) });

    // The holder passes the token on right behind the claim, one block earlier than the claim was
    // first mined: in the new chain that transfer comes after the claim, before its old position.
    const handOn = await createWalletClient({ account: holder.account, chain: devnet, transport: http(env.RPC_URL) }).signTransaction({
      to: contract as Address,
      data: encodeFunctionData({ abi: dropErc721Abi, functionName: "transferFrom", args: [holder.address, receiver, BigInt(tokenId!)] }),
      nonce: 0,
      gas: 100_000n,
      maxFeePerGas: 100n * 10n ** 9n,
      maxPriorityFeePerGas: 0n,
    });
    const raw = await rpc<Hex>("eth_getRawTransactionByHash", [claim!.transaction_hash]);
    await rpc("evm_setIntervalMining", [0]);
    try {
      const head = await chainClient().getBlockNumber({ cacheTime: 0 });
      await rpc("anvil_reorg", [Number(head - first.blockNumber) + 2, [[raw, 0], [handOn, 0]]]);
    } finally {
      await rpc("evm_setIntervalMining", [1]);
    }
    const again = await chainClient().getTransactionReceipt({ hash: claim!.transaction_hash });
    const handedOn = await chainClient().getTransactionReceipt({ hash: keccak256(handOn) });
    expect(handedOn.status).toBe("success");
    expect(again.blockNumber).toBe(first.blockNumber - 1n);
    expect(handedOn.blockNumber).toBe(again.blockNumber);
    expect(handedOn.logs[0]!.logIndex).toBeGreaterThan(again.logs[0]!.logIndex);

    const report = await runIndex();
    expect(report.toBlock).toBeGreaterThanOrEqual(Number(handedOn.blockNumber));
    expect((await ownerOf(contract, BigInt(tokenId!))).toLowerCase()).toBe(receiver);
    expect(await owned()).toMatchObject({ owner_address: receiver, block_number: Number(handedOn.blockNumber), log_index: handedOn.logs[0]!.logIndex });
    const holderAssets = await call(`/v1/assets/explore?ownerAddress=${holder.address}&contractAddress=${contract}`, { apiKey: creator.apiKey });
    expect(holderAssets.body.data).toEqual([]);
  });
});
