// Calls into DropFactory / DropERC721 (contracts/, docs/contracts.md). The drop's balances
// (its claim proceeds) are read with nativeBalance (transactions.ts) and erc20Balance (erc20.ts).
import { encodeFunctionData, keccak256, maxUint256, type Address, type Hex } from "viem";
import { dropErc721Abi } from "./artifacts/drop-erc721";
import { dropFactoryAbi } from "./artifacts/drop-factory";
import { publicClient } from "./client";
import { retryRead } from "./read-retry";

export interface DropInitParams {
  owner: string;
  minter: string;
  name: string;
  symbol: string;
  baseURI: string;
  mode: "standard" | "badge";
  /** 0 = unlimited. */
  maxSupply: number;
  unitPrice: bigint;
  /** Zero address = native currency. */
  currency: string;
  /** Unix seconds; 0 = open now. */
  startTime: number;
  /** 0 = unlimited. */
  limitPerWallet: number;
  merkleRoot: string;
  royaltyRecipient: string;
  royaltyBps: number;
  provenanceHash: string;
}

/** The owner-settable sale, as `setClaimConditions` takes it and `claimConditions()` returns it. */
export interface ClaimConditions {
  unitPrice: bigint;
  /** Zero address = native currency. */
  currency: string;
  /** Unix seconds; 0 = open now. */
  startTime: number;
  /** 0 = unlimited. */
  limitPerWallet: number;
  /** Cap on tokens ever minted; 0 = unlimited. */
  maxSupply: number;
  /** Zero = no allowlist (public sale). */
  merkleRoot: string;
}

export interface MintEntry {
  to: string;
  quantity: number;
}

export const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";
export const ZERO_BYTES32 = `0x${"00".repeat(32)}`;
/** uint96, the contract's price field. */
export const MAX_UNIT_PRICE = 2n ** 96n - 1n;

export function encodeCreateDrop(salt: string, params: DropInitParams): Hex {
  return encodeFunctionData({
    abi: dropFactoryAbi,
    functionName: "createDrop",
    args: [
      salt as Hex,
      {
        owner: params.owner as Address,
        minter: params.minter as Address,
        name: params.name,
        symbol: params.symbol,
        baseURI: params.baseURI,
        mode: params.mode === "badge" ? 1 : 0,
        maxSupply: params.maxSupply,
        unitPrice: params.unitPrice,
        currency: params.currency as Address,
        startTime: params.startTime,
        limitPerWallet: params.limitPerWallet,
        merkleRoot: params.merkleRoot as Hex,
        royaltyRecipient: params.royaltyRecipient as Address,
        royaltyBps: params.royaltyBps,
        provenanceHash: params.provenanceHash as Hex,
      },
    ],
  });
}

/** The clone address `createDrop(salt, …)` will have when the project wallet sends it. */
export async function predictDropAddress(rpcUrl: string, factory: string, deployer: string, salt: string): Promise<string> {
  const address = await publicClient(rpcUrl).readContract({
    address: factory as Address,
    abi: dropFactoryAbi,
    functionName: "predictAddress",
    args: [deployer as Address, salt as Hex],
  });
  return address.toLowerCase();
}

export const encodeMintTo = (to: string, quantity: number): Hex =>
  encodeFunctionData({ abi: dropErc721Abi, functionName: "mintTo", args: [to as Address, BigInt(quantity)] });

/** One transaction for many recipients; ids follow the entries' order. */
export const encodeMintToMany = (entries: readonly MintEntry[]): Hex =>
  encodeFunctionData({
    abi: dropErc721Abi,
    functionName: "mintToMany",
    args: [entries.map((e) => e.to as Address), entries.map((e) => BigInt(e.quantity))],
  });

/**
 * Gas for a mintToMany batch, before sending (to pack entries into transactions): the batch
 * itself measured 30.6k and each new recipient 47.2k plus 1.9k per extra token
 * (docs/benchmarks.md), with headroom. A repeated recipient costs less than this.
 */
export const mintToManyGasLimit = (quantities: readonly number[]) =>
  quantities.reduce((gas, quantity) => gas + 50_000n + 2_000n * BigInt(quantity - 1), 40_000n);

export const encodeSetClaimConditions = (c: ClaimConditions): Hex =>
  encodeFunctionData({
    abi: dropErc721Abi,
    functionName: "setClaimConditions",
    args: [
      {
        unitPrice: c.unitPrice,
        currency: c.currency as Address,
        startTime: c.startTime,
        limitPerWallet: c.limitPerWallet,
        maxSupply: c.maxSupply,
        merkleRoot: c.merkleRoot as Hex,
      },
    ],
  });

export const encodeSetRoyalty = (recipient: string, bps: number): Hex =>
  encodeFunctionData({ abi: dropErc721Abi, functionName: "setRoyalty", args: [recipient as Address, bps] });

export const encodeSetBaseURI = (baseURI: string): Hex =>
  encodeFunctionData({ abi: dropErc721Abi, functionName: "setBaseURI", args: [baseURI] });

/** Sends the drop's whole balance of `currency` (ZERO_ADDRESS = native) to `to`. */
export const encodeWithdraw = (currency: string, to: string): Hex =>
  encodeFunctionData({ abi: dropErc721Abi, functionName: "withdraw", args: [currency as Address, to as Address] });

export const encodeTransferOwnership = (newOwner: string): Hex =>
  encodeFunctionData({ abi: dropErc721Abi, functionName: "transferOwnership", args: [newOwner as Address] });

/** ERC-4906's "through the last token": `announceMetadataUpdate(1, LAST_TOKEN_ID)` covers every token. */
export const LAST_TOKEN_ID = maxUint256;

/** ERC-4906 MetadataUpdate when the ids are equal, else BatchMetadataUpdate over [from, to]. */
export const encodeAnnounceMetadataUpdate = (fromTokenId: bigint, toTokenId: bigint): Hex =>
  encodeFunctionData({ abi: dropErc721Abi, functionName: "announceMetadataUpdate", args: [fromTokenId, toTokenId] });

/** Publishes the blind-box key; the drop checks keccak256(key) against its provenance hash. */
export const encodeReveal = (blindboxKey: string): Hex =>
  encodeFunctionData({ abi: dropErc721Abi, functionName: "reveal", args: [blindboxKey as Hex] });

export const provenanceHashOf = (blindboxKey: string): string => keccak256(blindboxKey as Hex);

const readDrop = <const F extends "owner" | "claimConditions" | "totalMinted" | "provenanceHash" | "blindBoxKey">(rpcUrl: string, drop: string, functionName: F) =>
  retryRead(() => publicClient(rpcUrl).readContract({ address: drop as Address, abi: dropErc721Abi, functionName }));

/** The drop's owner (settings, withdrawals), lowercase. */
export async function readDropOwner(rpcUrl: string, drop: string): Promise<string> {
  return (await readDrop(rpcUrl, drop, "owner")).toLowerCase();
}

/** The sale in force: the creation values until the owner changes them. Addresses lowercase. */
export async function readClaimConditions(rpcUrl: string, drop: string): Promise<ClaimConditions> {
  const c = await readDrop(rpcUrl, drop, "claimConditions");
  return { ...c, currency: c.currency.toLowerCase() };
}

/** Tokens ever minted (burns included); also the last id minted. */
export async function readTotalMinted(rpcUrl: string, drop: string): Promise<number> {
  return Number(await readDrop(rpcUrl, drop, "totalMinted"));
}

export async function readProvenanceHash(rpcUrl: string, drop: string): Promise<string> {
  return readDrop(rpcUrl, drop, "provenanceHash");
}

/** The blind-box key `reveal` published, or null while the drop is not revealed. */
export async function readRevealedKey(rpcUrl: string, drop: string): Promise<string | null> {
  const key = await readDrop(rpcUrl, drop, "blindBoxKey");
  return key === ZERO_BYTES32 ? null : key;
}

/**
 * Gas for a mint whose drop is not deployed yet (so it cannot be estimated): measured 76.7k for
 * one token to a new wallet plus ~1.9k per extra token (docs/benchmarks.md), with headroom.
 */
export const mintGasLimitWithoutEstimate = (quantity: number) => 150_000n + 5_000n * BigInt(quantity);
