// Calls into DropFactory / DropERC721 (contracts/, docs/contracts.md).
import { encodeFunctionData, keccak256, type Address, type Hex } from "viem";
import { dropErc721Abi } from "./artifacts/drop-erc721";
import { dropFactoryAbi } from "./artifacts/drop-factory";
import { publicClient } from "./client";

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

export const provenanceHashOf = (blindboxKey: string): string => keccak256(blindboxKey as Hex);

/**
 * Gas for a mint whose drop is not deployed yet (so it cannot be estimated): measured 76.7k for
 * one token to a new wallet plus ~1.9k per extra token (docs/benchmarks.md), with headroom.
 */
export const mintGasLimitWithoutEstimate = (quantity: number) => 150_000n + 5_000n * BigInt(quantity);
