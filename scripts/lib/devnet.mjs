// Deploys Mintyard's chain fixtures to a local devnet (anvil): ConduitController, Seaport 1.6
// and the DropFactory with its DropERC721 implementation. A fixed, devnet-only deployer key
// whose nonce starts at 0 on a fresh chain makes every address the same on every run.
import { createPublicClient, createWalletClient, defineChain, encodeDeployData, getAddress, getContractAddress, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DEVNET_CHAIN_ID } from "./anvil.mjs";
import { loadArtifact } from "./artifacts.mjs";

/** keccak256("mintyard devnet deployer"). Devnet only: never fund it anywhere real. */
export const DEVNET_DEPLOYER_PRIVATE_KEY = "0x8151b85fa3b10943878796ecd599c098b919e6cc9c3c2c098555b5c28f1d65d7";

// Deployment order fixes the nonces and so the addresses. Gas limits are explicit: the
// transactions go out back to back, before the earlier ones are mined, so nothing can be
// estimated (Seaport's constructor calls the conduit controller).
const PLAN = [
  { key: "conduitControllerAddress", artifact: "src/chain/artifacts/conduit-controller.ts", gas: 3_000_000n, args: () => [] },
  { key: "seaportAddress", artifact: "src/chain/artifacts/seaport.ts", gas: 7_000_000n, args: (a) => [a.conduitControllerAddress] },
  { key: "dropImplementationAddress", artifact: "src/chain/artifacts/drop-erc721.ts", gas: 4_000_000n, args: () => [] },
  { key: "dropFactoryAddress", artifact: "src/chain/artifacts/drop-factory.ts", gas: 1_000_000n, args: (a) => [a.dropImplementationAddress] },
];

/** Deploys what is missing and returns the (checksummed) addresses. Idempotent. */
export async function deployDevnet(rpcUrl) {
  const account = privateKeyToAccount(DEVNET_DEPLOYER_PRIVATE_KEY);
  const transport = http(rpcUrl);
  const probe = createPublicClient({ transport });
  const chain = defineChain({
    id: await probe.getChainId(),
    name: "Mintyard devnet",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
  const client = createPublicClient({ chain, transport, pollingInterval: 100 });
  const wallet = createWalletClient({ account, chain, transport });

  const addresses = { deployerAddress: account.address };
  PLAN.forEach((step, nonce) => {
    addresses[step.key] = getAddress(getContractAddress({ from: account.address, nonce: BigInt(nonce) }));
  });

  const codes = await Promise.all(PLAN.map((s) => client.getCode({ address: addresses[s.key] })));
  const missing = PLAN.map((step, nonce) => ({ step, nonce })).filter((_, i) => !codes[i] || codes[i] === "0x");
  if (missing.length === 0) return addresses;

  const nonce = await client.getTransactionCount({ address: account.address, blockTag: "pending" });
  if (missing[0].nonce !== nonce) {
    throw new Error(`devnet deployer nonce is ${nonce} but ${missing[0].step.key} needs nonce ${missing[0].nonce}: was the chain reused?`);
  }
  await client.request({ method: "anvil_setBalance", params: [account.address, "0x3635c9adc5dea00000"] }); // 1,000 ETH

  const fees = await client.estimateFeesPerGas();
  const hashes = [];
  for (const { step, nonce: n } of missing) {
    const { abi, bytecode } = loadArtifact(step.artifact);
    const data = encodeDeployData({ abi, bytecode, args: step.args(addresses) });
    hashes.push(await wallet.sendTransaction({ data, nonce: n, gas: step.gas, ...fees }));
  }
  const receipts = await Promise.all(hashes.map((hash) => client.waitForTransactionReceipt({ hash })));
  receipts.forEach((r, i) => {
    if (r.status !== "success") throw new Error(`devnet: deploying ${missing[i].step.key} reverted (${r.transactionHash})`);
  });
  return addresses;
}

/**
 * The Worker's CHAINS for a local devnet: chain 1868 at `rpcUrl` (anvil, or a proxy in front of
 * it) with the devnet's contracts, no confirmations (blocks are final locally).
 */
export function devnetChains(rpcUrl, contracts) {
  return {
    [DEVNET_CHAIN_ID]: {
      name: "soneium",
      rpcUrl,
      seaportAddress: contracts.seaportAddress,
      dropFactoryAddress: contracts.dropFactoryAddress,
      confirmations: 0,
      nativeSymbol: "ETH",
    },
  };
}
