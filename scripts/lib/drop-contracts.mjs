// The drop contracts (the DropERC721 implementation and the DropFactory) on any chain: deployed
// through the CREATE2 deployer with fixed salts, so their addresses follow from the compiled
// artifacts alone and are the same on the devnet, Minato and Soneium. `npm run contracts:deploy`
// (scripts/contracts-deploy.mjs) and the devnet (deployDevnet) both deploy through
// sendDeployments/confirmDeployments; the doctor checks a chain with inspectContract.
import { encodeDeployData, keccak256, toHex } from "viem";
import { estimateL1Fee } from "viem/op-stack";
import { loadArtifact } from "./artifacts.mjs";
import { CREATE2_DEPLOYER, create2Address, create2Calldata, create2DeployerStatus } from "./create2.mjs";
import { runtimeMatches } from "./runtime-code.mjs";

/** Fixed forever: changing a salt moves every address. */
export const DROP_SALTS = {
  dropImplementationAddress: keccak256(toHex("mintyard DropERC721 implementation")),
  dropFactoryAddress: keccak256(toHex("mintyard DropFactory")),
};

/** OP Stack's GasPriceOracle predeploy: what a transaction's L1 data costs on top of its gas. */
const GAS_PRICE_ORACLE = "0x420000000000000000000000000000000000000F";
/** Headroom over eth_estimateGas, so a slightly different state at inclusion does not run out. */
const GAS_HEADROOM_PERCENT = 10n;
const RECEIPT_TIMEOUT_MS = 5 * 60_000;

/** Why a deployment stops; `code` classifies it for callers and tests. */
export class DeployError extends Error {
  constructor(code, message) {
    super(message);
    this.name = "DeployError";
    this.code = code;
  }
}

/**
 * The two contracts in deployment order: what each is, its salt, initcode and address, its
 * artifact, and the immutables its constructor writes (checked through their getters).
 */
export function dropContracts() {
  const implementation = loadArtifact("src/chain/artifacts/drop-erc721.ts");
  const factory = loadArtifact("src/chain/artifacts/drop-factory.ts");
  const implementationAddress = create2Address(DROP_SALTS.dropImplementationAddress, implementation.bytecode);
  const factoryInitcode = encodeDeployData({ abi: factory.abi, bytecode: factory.bytecode, args: [implementationAddress] });
  return [
    {
      key: "dropImplementationAddress",
      name: "DropERC721 implementation",
      salt: DROP_SALTS.dropImplementationAddress,
      initcode: implementation.bytecode,
      address: implementationAddress,
      artifact: implementation,
      immutables: [],
    },
    {
      key: "dropFactoryAddress",
      name: "DropFactory",
      salt: DROP_SALTS.dropFactoryAddress,
      initcode: factoryInitcode,
      address: create2Address(DROP_SALTS.dropFactoryAddress, factoryInitcode),
      artifact: factory,
      immutables: [{ functionName: "implementation", expected: implementationAddress }],
    },
  ];
}

/** { dropImplementationAddress, dropFactoryAddress } as the current artifacts place them. */
export function dropContractAddresses() {
  return Object.fromEntries(dropContracts().map((c) => [c.key, c.address]));
}

/**
 * What is at a contract's address: { status: "present" } when it is the artifact's runtime code
 * with the expected immutables, "missing" when there is no code, "different" (with why) else.
 */
export async function inspectContract(client, contract) {
  const code = await client.getCode({ address: contract.address });
  if (!code || code === "0x") return { status: "missing" };
  if (!runtimeMatches(code, contract.artifact)) {
    return { status: "different", detail: `${(code.length - 2) / 2} bytes of code that is not this build's ${contract.name}` };
  }
  for (const { functionName, expected } of contract.immutables) {
    const actual = await client.readContract({ address: contract.address, abi: contract.artifact.abi, functionName });
    if (String(actual).toLowerCase() !== expected.toLowerCase()) {
      return { status: "different", detail: `${functionName}() is ${actual}, expected ${expected}` };
    }
  }
  return { status: "present" };
}

/** Fails unless the chain has the CREATE2 deployer, which every drop-contract address depends on. */
export async function assertCreate2Deployer(client) {
  const status = await create2DeployerStatus(client);
  if (status === "missing") {
    throw new DeployError(
      "create2_deployer_missing",
      `this chain has no CREATE2 deployer at ${CREATE2_DEPLOYER}: the drop contracts' addresses depend on it. ` +
        "OP Stack chains have it as a preinstall and anvil ships it; on another chain, deploy it first (its presigned transaction is documented with the proxy).",
    );
  }
  if (status === "different") {
    throw new DeployError("create2_deployer_different", `the code at ${CREATE2_DEPLOYER} is not the CREATE2 deployer: refusing to deploy through it`);
  }
}

/** Every drop contract with its status on this chain. */
export async function inspectDropContracts(client) {
  await assertCreate2Deployer(client);
  return Promise.all(dropContracts().map(async (contract) => ({ ...contract, ...(await inspectContract(client, contract)) })));
}

/**
 * Gas (estimate plus headroom), fees and the L1 data fee of deploying `contracts` from
 * `account`, and the most it can cost in total (wei).
 */
export async function estimateDeployments(client, account, contracts) {
  const fees = await client.estimateFeesPerGas();
  const l1 = await l1FeeEstimator(client, account);
  const deployments = await Promise.all(
    contracts.map(async (contract) => {
      const data = create2Calldata(contract.salt, contract.initcode);
      const estimate = await client.estimateGas({ account, to: CREATE2_DEPLOYER, data });
      return { contract, data, gas: (estimate * (100n + GAS_HEADROOM_PERCENT)) / 100n, l1Fee: await l1(data) };
    }),
  );
  const maxCost = deployments.reduce((sum, d) => sum + d.gas * fees.maxFeePerGas + d.l1Fee, 0n);
  return { deployments, fees, maxCost };
}

/** On an OP Stack chain, the L1 data fee of a deployment; elsewhere (anvil) none. */
async function l1FeeEstimator(client, account) {
  const oracle = await client.getCode({ address: GAS_PRICE_ORACLE });
  if (!oracle || oracle === "0x") return async () => 0n;
  return (data) => estimateL1Fee(client, { account, to: CREATE2_DEPLOYER, data, chain: client.chain, gasPriceOracleAddress: GAS_PRICE_ORACLE });
}

/** Sends the deployments back to back from `wallet` (consecutive nonces) and returns their hashes. */
export async function sendDeployments(client, wallet, { deployments, fees }) {
  let nonce = await client.getTransactionCount({ address: wallet.account.address, blockTag: "pending" });
  const sent = [];
  for (const { contract, data, gas } of deployments) {
    const hash = await wallet.sendTransaction({ to: CREATE2_DEPLOYER, data, gas, nonce: nonce++, ...fees });
    sent.push({ contract, hash });
  }
  return sent;
}

/** Waits for each deployment and checks the code it left; returns the receipts' block numbers. */
export async function confirmDeployments(client, sent) {
  const receipts = await Promise.all(sent.map(({ hash }) => client.waitForTransactionReceipt({ hash, timeout: RECEIPT_TIMEOUT_MS })));
  const confirmed = [];
  for (const [i, { contract, hash }] of sent.entries()) {
    if (receipts[i].status !== "success") throw new DeployError("deploy_reverted", `deploying ${contract.name} reverted (${hash})`);
    const after = await inspectContract(client, contract);
    if (after.status !== "present") {
      throw new DeployError("deploy_unverified", `${contract.name} at ${contract.address} after ${hash}: ${after.detail ?? "no code"}`);
    }
    confirmed.push({ contract, hash, blockNumber: receipts[i].blockNumber });
  }
  return confirmed;
}

/**
 * Deploys whichever drop contract is missing from `wallet` and returns their addresses. Used by
 * the devnet, which funds its own deployer; contracts:deploy runs the same steps with its plan
 * and balance check in between.
 */
export async function deployDropContracts(client, wallet) {
  const contracts = await inspectDropContracts(client);
  const different = contracts.find((c) => c.status === "different");
  if (different) throw new DeployError("unexpected_code", `${different.name} at ${different.address}: ${different.detail}`);
  const missing = contracts.filter((c) => c.status === "missing");
  if (missing.length > 0) {
    await confirmDeployments(client, await sendDeployments(client, wallet, await estimateDeployments(client, wallet.account, missing)));
  }
  return Object.fromEntries(contracts.map((c) => [c.key, c.address]));
}
