// Shared fixtures for the contract suite. Files run in parallel against one anvil, so each
// file uses its own anvil accounts (by index) or its own generated keys, and fresh drops per
// test instead of evm_snapshot/evm_revert (a revert would undo the other files' work).
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  keccak256,
  parseEther,
  toHex,
  zeroAddress,
  zeroHash,
  type Abi,
  type Address,
  type Hash,
} from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { expect, inject } from "vitest";
import { ANVIL_TEST_MNEMONIC, DEVNET_CHAIN_ID } from "../../scripts/lib/anvil.mjs";
import { dropErc721Abi, dropErc721Bytecode, dropFactoryAbi, dropFactoryBytecode } from "../../src/chain/artifacts";

export const rpcUrl = inject("contractsRpcUrl");
export const chain = defineChain({
  id: DEVNET_CHAIN_ID,
  name: "contracts-test",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [rpcUrl] } },
});
const transport = http(rpcUrl);
export const client = createPublicClient({ chain, transport, pollingInterval: 20 });
export const testClient = createTestClient({ chain, transport, mode: "anvil" });

export type Wallet = ReturnType<typeof walletOf>;

function walletOf(account: ReturnType<typeof privateKeyToAccount> | ReturnType<typeof mnemonicToAccount>) {
  return createWalletClient({ account, chain, transport });
}

/** anvil's default account `index` (funded at genesis). */
export function anvilWallet(index: number) {
  return walletOf(mnemonicToAccount(ANVIL_TEST_MNEMONIC, { addressIndex: index }));
}

/** A wallet that never held anything, funded with 100 ETH; `label` must be unique in the suite. */
export async function freshWallet(label: string) {
  const wallet = walletOf(privateKeyToAccount(keccak256(toHex(`contracts-test ${label}`))));
  await testClient.setBalance({ address: wallet.account.address, value: parseEther("100") });
  return wallet;
}

/** Waits for a transaction and asserts it succeeded. */
export async function mined(hash: Hash | Promise<Hash>) {
  const receipt = await client.waitForTransactionReceipt({ hash: await hash });
  expect(receipt.status).toBe("success");
  return receipt;
}

/** Drop + factory errors, so a revert bubbled through createDrop decodes too. */
export const factoryWithDropErrorsAbi = [...dropFactoryAbi, ...dropErc721Abi.filter((x) => x.type === "error")] as const;

/** Awaits a call expected to revert and asserts the custom error's name (by type, not text). */
export async function expectRevert(promise: Promise<unknown>, errorName: string) {
  let error: unknown;
  try {
    await promise;
  } catch (err) {
    error = err;
  }
  if (!error) throw new Error(`expected a revert with ${errorName}, but the call succeeded`);
  const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
  if (!(reverted instanceof ContractFunctionRevertedError)) throw error;
  expect(reverted.data?.errorName).toBe(errorName);
  return reverted.data?.args ?? [];
}

/** Waits for a deployment and returns the checksummed contract address. */
export async function deployed(hash: Hash | Promise<Hash>) {
  return getAddress((await mined(hash)).contractAddress!);
}

/** Deploys an implementation and a factory from `wallet` (each file gets its own). */
export async function deployFactory(wallet: Wallet) {
  const implementation = await deployed(wallet.deployContract({ abi: dropErc721Abi, bytecode: dropErc721Bytecode }));
  const factory = await deployed(wallet.deployContract({ abi: dropFactoryAbi, bytecode: dropFactoryBytecode, args: [implementation] }));
  return { implementation, factory };
}

export type InitParams = {
  owner: Address;
  minter: Address;
  name: string;
  symbol: string;
  baseURI: string;
  mode: number;
  maxSupply: number;
  unitPrice: bigint;
  currency: Address;
  startTime: number;
  limitPerWallet: number;
  merkleRoot: Hash;
  royaltyRecipient: Address;
  royaltyBps: number;
  provenanceHash: Hash;
};

export const MODE_STANDARD = 0;
export const MODE_BADGE = 1;

export function defaultParams(owner: Address, minter: Address, overrides: Partial<InitParams> = {}): InitParams {
  return {
    owner,
    minter,
    name: "Test Drop",
    symbol: "TDROP",
    baseURI: "https://meta.example/drop/",
    mode: MODE_STANDARD,
    maxSupply: 0,
    unitPrice: 0n,
    currency: zeroAddress,
    startTime: 0,
    limitPerWallet: 0,
    merkleRoot: zeroHash,
    royaltyRecipient: zeroAddress,
    royaltyBps: 0,
    provenanceHash: zeroHash,
    ...overrides,
  };
}

let saltCounter = 0;

/** Creates a drop through `factory` with a fresh salt; returns its address. */
export async function createDrop(wallet: Wallet, factory: Address, params: InitParams) {
  const salt = keccak256(toHex(`salt ${wallet.account.address} ${saltCounter++} ${Date.now()}`));
  const drop = await client.readContract({
    address: factory,
    abi: dropFactoryAbi,
    functionName: "predictAddress",
    args: [wallet.account.address, salt],
  });
  await mined(wallet.writeContract({ address: factory, abi: dropFactoryAbi, functionName: "createDrop", args: [salt, params] }));
  return drop;
}

/** The drop's ABI plus extra error definitions (e.g. an ERC-20's) for decoding. */
export function withErrors<const A extends Abi>(abi: A) {
  return [...dropErc721Abi, ...abi.filter((x) => x.type === "error")] as const;
}

export async function increaseTime(seconds: number) {
  await testClient.increaseTime({ seconds });
  await testClient.mine({ blocks: 1 });
}
