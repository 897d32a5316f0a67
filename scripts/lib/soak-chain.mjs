// The soak's chain read-back, straight from anvil (never through the faulty proxy): every
// transaction the project wallet got mined during the run, found by scanning the run's blocks
// rather than by the hashes the API reports, so a transaction the service never told anyone
// about (a duplicate, a stray fill) is seen too; plus balanceOf / ownerOf per recipient.
import { decodeFunctionData } from "viem";
import { chainClients } from "./bench-chain.mjs";
import { loadArtifact } from "./artifacts.mjs";

const dropAbi = loadArtifact("src/chain/artifacts/drop-erc721.ts").abi;

async function rpcBatch(url, calls) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(calls.map(([method, params], id) => ({ jsonrpc: "2.0", id, method, params }))),
  });
  const answers = await response.json();
  return calls.map((_, id) => {
    const answer = answers.find((a) => a.id === id);
    if (!answer || answer.error) throw new Error(`${calls[id][0]}: ${answer?.error?.message ?? "no answer"}`);
    return answer.result;
  });
}

/** What a wallet transaction is: a mintTo on the drop, a 0-value self-transfer (a nonce fill), or other. */
function classify(tx, wallet, contract) {
  const to = tx.to?.toLowerCase();
  if (to === wallet && BigInt(tx.value) === 0n && tx.input === "0x") return { kind: "fill" };
  if (to === contract) {
    try {
      const { functionName, args } = decodeFunctionData({ abi: dropAbi, data: tx.input });
      if (functionName === "mintTo") return { kind: "claim", recipient: args[0].toLowerCase(), quantity: Number(args[1]) };
    } catch {
      // not a drop call we know
    }
  }
  return { kind: "other" };
}

/** Every transaction `wallet` got mined in blocks fromBlock..head, with its receipt status. */
export async function walletTransactions({ rpcUrl, wallet, contract, fromBlock }) {
  const head = Number(await rpcBatch(rpcUrl, [["eth_blockNumber", []]]).then(([h]) => h));
  const out = [];
  // [block, base fee in gwei, transactions]: when a spike or a full block priced something out.
  const baseFees = [];
  const lowerWallet = wallet.toLowerCase();
  const lowerContract = contract.toLowerCase();
  for (let start = fromBlock; start <= head; start += 25) {
    const numbers = Array.from({ length: Math.min(25, head - start + 1) }, (_, k) => `0x${(start + k).toString(16)}`);
    const answers = await rpcBatch(rpcUrl, numbers.flatMap((n) => [["eth_getBlockByNumber", [n, true]], ["eth_getBlockReceipts", [n]]]));
    for (let k = 0; k < numbers.length; k++) {
      const [block, receipts] = [answers[2 * k], answers[2 * k + 1]];
      const status = new Map(receipts.map((r) => [r.transactionHash, r.status === "0x1" ? "success" : "reverted"]));
      baseFees.push([Number(block.number), Number(BigInt(block.baseFeePerGas ?? 0)) / 1e9, block.transactions.length]);
      for (const tx of block.transactions) {
        if (tx.from.toLowerCase() !== lowerWallet) continue;
        out.push({
          hash: tx.hash,
          nonce: Number(tx.nonce),
          block: Number(block.number),
          status: status.get(tx.hash),
          maxFeePerGas: tx.maxFeePerGas,
          ...classify(tx, lowerWallet, lowerContract),
        });
      }
    }
  }
  return { head, transactions: out, baseFees };
}

/** Runs `fn` over items with at most `size` in flight (viem batches them into JSON-RPC batches). */
async function inChunks(items, size, fn) {
  const out = [];
  for (let i = 0; i < items.length; i += size) out.push(...(await Promise.all(items.slice(i, i + size).map(fn))));
  return out;
}

/** balanceOf(recipient) and ownerOf(tokenId) (null when the token does not exist) per item. */
export async function holdings({ rpcUrl, contract, items }) {
  const { client } = chainClients(rpcUrl);
  const read = (functionName, args) => client.readContract({ address: contract, abi: dropAbi, functionName, args });
  return inChunks(items, 500, async ({ recipient, tokenId }) => {
    const [balance, owner] = await Promise.all([
      read("balanceOf", [recipient]).then(Number),
      tokenId == null ? null : read("ownerOf", [BigInt(tokenId)]).catch(() => null),
    ]);
    return { balance, owner: owner?.toLowerCase() ?? null };
  });
}

/**
 * The wallet's mined count, anvil's "pending" count, and every transaction of it in the pool:
 * anvil's pending count only covers ready transactions, so anything queued behind a nonce gap
 * is seen in txpool_content only.
 */
export async function walletNonces(rpcUrl, wallet) {
  const [latest, pending, pool] = await rpcBatch(rpcUrl, [
    ["eth_getTransactionCount", [wallet, "latest"]],
    ["eth_getTransactionCount", [wallet, "pending"]],
    ["txpool_content", []],
  ]);
  const mine = (section) => Object.entries(pool[section] ?? {}).find(([address]) => address.toLowerCase() === wallet.toLowerCase())?.[1] ?? {};
  const queued = Object.keys(mine("queued")).map(Number);
  return { latest: Number(latest), pending: Number(pending), pooled: Object.keys(mine("pending")).length + queued.length, queued: queued.length, firstQueued: queued.length ? Math.min(...queued) : null };
}

/** The wallet's transactions still in anvil's pool, decoded like mined ones: { hash, nonce, section, maxFeePerGas, kind, recipient? }. */
export async function walletPool(rpcUrl, wallet, contract) {
  const [pool] = await rpcBatch(rpcUrl, [["txpool_content", []]]);
  const lowerWallet = wallet.toLowerCase();
  return ["pending", "queued"].flatMap((section) =>
    Object.values(Object.entries(pool[section] ?? {}).find(([address]) => address.toLowerCase() === lowerWallet)?.[1] ?? {}).map((tx) => ({
      hash: tx.hash,
      nonce: Number(tx.nonce),
      section,
      maxFeePerGas: tx.maxFeePerGas,
      ...classify(tx, lowerWallet, contract.toLowerCase()),
    })),
  );
}

export async function totalMinted(rpcUrl, contract) {
  return Number(await chainClients(rpcUrl).client.readContract({ address: contract, abi: dropAbi, functionName: "totalMinted" }));
}

export const headBlock = (rpcUrl) => rpcBatch(rpcUrl, [["eth_blockNumber", []]]).then(([h]) => Number(h));
