// Deploys Mintyard's chain fixtures to a local devnet (anvil). Seaport 1.6 and its
// ConduitController come from a fixed, devnet-only deployer key whose nonces 0 and 1 make their
// addresses the same on every run (the production chains have Seaport at its canonical address).
// The drop implementation and the DropFactory go through the CREATE2 deployer exactly as
// `npm run contracts:deploy` sends them to Soneium (scripts/lib/drop-contracts.mjs), so the
// devnet's drop addresses are the production ones.
import { createPublicClient, createWalletClient, defineChain, encodeDeployData, getAddress, getContractAddress, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { DEVNET_CHAIN_ID } from "./anvil.mjs";
import { loadArtifact } from "./artifacts.mjs";
import { deployDropContracts } from "./drop-contracts.mjs";

/** keccak256("mintyard devnet deployer"). Devnet only: never fund it anywhere real. */
export const DEVNET_DEPLOYER_PRIVATE_KEY = "0x8151b85fa3b10943878796ecd599c098b919e6cc9c3c2c098555b5c28f1d65d7";

// Deployment order fixes the nonces and so the addresses. Gas limits are explicit: the
// transactions go out back to back, before the first is mined, so Seaport's constructor (which
// calls the conduit controller) cannot be estimated.
const SEAPORT_PLAN = [
  { key: "conduitControllerAddress", artifact: "src/chain/artifacts/conduit-controller.ts", gas: 3_000_000n, args: () => [] },
  { key: "seaportAddress", artifact: "src/chain/artifacts/seaport.ts", gas: 7_000_000n, args: (a) => [a.conduitControllerAddress] },
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
  SEAPORT_PLAN.forEach((step, nonce) => {
    addresses[step.key] = getAddress(getContractAddress({ from: account.address, nonce: BigInt(nonce) }));
  });
  await client.request({ method: "anvil_setBalance", params: [account.address, "0x3635c9adc5dea00000"] }); // 1,000 ETH
  const seaportSent = await sendSeaport(client, wallet, addresses);
  // The drop contracts go out while Seaport's transactions wait in the same block.
  Object.assign(addresses, await deployDropContracts(client, wallet));
  const receipts = await Promise.all(seaportSent.map(({ hash }) => client.waitForTransactionReceipt({ hash })));
  receipts.forEach((r, i) => {
    if (r.status !== "success") throw new Error(`devnet: deploying ${seaportSent[i].key} reverted (${r.transactionHash})`);
  });
  return addresses;
}

/** Sends whichever of ConduitController and Seaport is missing, at its fixed nonce. */
async function sendSeaport(client, wallet, addresses) {
  const codes = await Promise.all(SEAPORT_PLAN.map((s) => client.getCode({ address: addresses[s.key] })));
  const missing = SEAPORT_PLAN.map((step, nonce) => ({ step, nonce })).filter((_, i) => !codes[i] || codes[i] === "0x");
  if (missing.length === 0) return [];
  const nonce = await client.getTransactionCount({ address: wallet.account.address, blockTag: "pending" });
  if (missing[0].nonce !== nonce) {
    throw new Error(`devnet deployer nonce is ${nonce} but ${missing[0].step.key} needs nonce ${missing[0].nonce}: was the chain reused?`);
  }
  const fees = await client.estimateFeesPerGas();
  const sent = [];
  for (const { step, nonce: n } of missing) {
    const { abi, bytecode } = loadArtifact(step.artifact);
    const data = encodeDeployData({ abi, bytecode, args: step.args(addresses) });
    sent.push({ key: step.key, hash: await wallet.sendTransaction({ data, nonce: n, gas: step.gas, ...fees }) });
  }
  return sent;
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
