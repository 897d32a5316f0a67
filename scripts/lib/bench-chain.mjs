// Chain side of the claims benchmark: the raw-wallet baseline (its own drop through the
// DropFactory, pre-signed mintTo transactions sent straight to anvil) and the on-chain checks
// both runs share (nonce accounting and ownerOf per claim), read with viem.
import { createPublicClient, createWalletClient, defineChain, encodeFunctionData, getAddress, http, keccak256, parseEther, toHex, zeroAddress, zeroHash } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DEVNET_CHAIN_ID } from "./anvil.mjs";
import { loadArtifact } from "./artifacts.mjs";

const dropAbi = loadArtifact("src/chain/artifacts/drop-erc721.ts").abi;
const factoryAbi = loadArtifact("src/chain/artifacts/drop-factory.ts").abi;

/** A wallet that has never held a token: the same "new wallet" mint cost for every claim. */
export const freshRecipients = (tag, count) =>
  Array.from({ length: count }, (_, i) => getAddress(`0x${keccak256(toHex(`mintyard bench ${tag} recipient ${i}`)).slice(-40)}`));

const clients = new Map();
export function chainClients(rpcUrl) {
  if (!clients.has(rpcUrl)) clients.set(rpcUrl, makeClients(rpcUrl));
  return clients.get(rpcUrl);
}

function makeClients(rpcUrl) {
  const chain = defineChain({
    id: DEVNET_CHAIN_ID,
    name: "bench",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  // JSON-RPC batches keep the hundreds of verification reads cheap for anvil.
  const transport = http(rpcUrl, { batch: { batchSize: 100 } });
  return { chain, client: createPublicClient({ chain, transport, pollingInterval: 100 }), wallet: createWalletClient({ chain, transport }) };
}

/**
 * The baseline's setup, all before timing starts: a funded raw key creates its own drop (so it
 * is the minter), then `count` mintTo(recipient_i, 1) transactions are signed for nonces
 * n..n+count-1. Gas limit and fees follow the service's rules (estimate + buffer, 2 × base fee +
 * tip) so the two runs put the same load on the chain.
 */
export async function prepareRawBaseline({ rpcUrl, factoryAddress, recipients, gasBufferPercent }) {
  const { chain, client, wallet } = chainClients(rpcUrl);
  const account = privateKeyToAccount(keccak256(toHex("mintyard bench raw minter")));
  await client.request({ method: "anvil_setBalance", params: [account.address, toHex(parseEther("1000"))] });

  const salt = keccak256(toHex(`mintyard bench raw drop ${Date.now()}`));
  const dropAddress = await client.readContract({ address: factoryAddress, abi: factoryAbi, functionName: "predictAddress", args: [account.address, salt] });
  const params = {
    owner: account.address,
    minter: account.address,
    name: "Bench raw",
    symbol: "BR",
    baseURI: "https://example.com/",
    mode: 0,
    maxSupply: 0,
    unitPrice: 0n,
    currency: zeroAddress,
    startTime: 0,
    limitPerWallet: 0,
    merkleRoot: zeroHash,
    royaltyRecipient: account.address,
    royaltyBps: 0,
    provenanceHash: zeroHash,
  };
  const deployHash = await wallet.writeContract({ account, chain, address: factoryAddress, abi: factoryAbi, functionName: "createDrop", args: [salt, params] });
  const deployed = await client.waitForTransactionReceipt({ hash: deployHash });
  if (deployed.status !== "success") throw new Error(`raw baseline: createDrop reverted (${deployHash})`);

  const mintData = (to) => encodeFunctionData({ abi: dropAbi, functionName: "mintTo", args: [to, 1n] });
  const estimate = await client.estimateGas({ account: account.address, to: dropAddress, data: mintData(recipients[0]) });
  const gas = (estimate * BigInt(100 + gasBufferPercent)) / 100n;
  const [block, tip] = await Promise.all([client.getBlock({ blockTag: "latest" }), client.estimateMaxPriorityFeePerGas()]);
  const maxPriorityFeePerGas = tip > 0n ? tip : 1_000_000n;
  const maxFeePerGas = (block.baseFeePerGas ?? 0n) * 2n + maxPriorityFeePerGas;
  const nonce = await client.getTransactionCount({ address: account.address, blockTag: "pending" });
  const firstTokenId = Number(await client.readContract({ address: dropAddress, abi: dropAbi, functionName: "totalMinted" })) + 1;

  const signed = await Promise.all(
    recipients.map((to, i) =>
      account.signTransaction({ type: "eip1559", chainId: DEVNET_CHAIN_ID, nonce: nonce + i, to: dropAddress, data: mintData(to), value: 0n, gas, maxFeePerGas, maxPriorityFeePerGas }),
    ),
  );
  return { address: account.address, dropAddress, nonce, gas, signed, hashes: signed.map((raw) => keccak256(raw)), firstTokenId };
}

/** One eth_sendRawTransaction straight to the node (a plain fetch, as a thin client would). */
export function rawSender(rpcUrl, signed) {
  return async (i) => {
    const response = await fetch(rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "eth_sendRawTransaction", params: [signed[i]] }),
    });
    const body = await response.json();
    return body.error ? { ok: false, status: `rpc ${body.error.code}`, error: body.error.message } : { ok: true, status: response.status, hash: body.result };
  };
}

export async function transactionCount(rpcUrl, address, blockTag = "latest") {
  return chainClients(rpcUrl).client.getTransactionCount({ address, blockTag });
}

/**
 * What the chain says about a run's accepted claims ({ recipient, tokenId, hash }): each hash
 * mined (and its nonce), each predicted token owned by its recipient, and the wallet's nonces
 * n..n+accepted-1 used exactly once each by those claims.
 */
export async function verifyOnChain({ rpcUrl, wallet, contract, nonceBefore, claims }) {
  const { client } = chainClients(rpcUrl);
  const [latest, pending] = await Promise.all([
    client.getTransactionCount({ address: wallet, blockTag: "latest" }),
    client.getTransactionCount({ address: wallet, blockTag: "pending" }),
  ]);
  const checked = await Promise.all(
    claims.map(async (claim) => {
      const tx = claim.hash ? await client.getTransaction({ hash: claim.hash }).catch(() => null) : null;
      const owner = await client
        .readContract({ address: contract, abi: dropAbi, functionName: "ownerOf", args: [BigInt(claim.tokenId)] })
        .catch(() => null);
      return {
        mined: Boolean(tx?.blockNumber),
        nonce: tx ? tx.nonce : null,
        owned: owner !== null && owner.toLowerCase() === claim.recipient.toLowerCase(),
      };
    }),
  );

  const uses = new Map();
  for (const c of checked) if (c.mined) uses.set(c.nonce, (uses.get(c.nonce) ?? 0) + 1);
  let missing = 0;
  for (let n = nonceBefore; n < nonceBefore + claims.length; n++) if (!uses.has(n)) missing += 1;
  const duplicates = [...uses.values()].reduce((sum, k) => sum + (k - 1), 0);
  const outOfRange = [...uses.keys()].filter((n) => n < nonceBefore || n >= nonceBefore + claims.length).length;

  return {
    nonceDelta: latest - nonceBefore,
    /** Signed but unmined: something is stuck behind a gap. */
    stuckInPool: pending - latest,
    nonceGaps: missing,
    nonceDuplicates: duplicates,
    nonceOutOfRange: outOfRange,
    notMined: checked.filter((c) => !c.mined).length,
    ownerMismatch: checked.filter((c) => !c.owned).length,
    lost: checked.filter((c) => !c.mined || !c.owned).length,
  };
}
