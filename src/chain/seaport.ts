// Seaport 1.6 orders: EIP-712 hashing exactly as Seaport does it, signature checks (EOA with
// 65-byte or EIP-2098 64-byte signatures, EIP-1271 for contract wallets) and the reads an
// order's validity depends on.
import {
  compactSignatureToSignature,
  encodeFunctionData,
  hashStruct,
  hashTypedData,
  parseAbi,
  parseCompactSignature,
  recoverAddress,
  serializeSignature,
  type Address,
  type Hex,
} from "viem";
import { seaportAbi } from "./artifacts/seaport";
import { ChainUnavailableError } from "./chain-unavailable";
import { publicClient } from "./client";
import { retryRead } from "./read-retry";
import { classifySimulationError } from "./rpc-errors";
import { SEAPORT_EIP712_TYPES } from "./seaport-types";

export const ITEM_TYPE = { NATIVE: 0, ERC20: 1, ERC721: 2, ERC1155: 3 } as const;
export const ORDER_TYPE = { FULL_OPEN: 0, PARTIAL_OPEN: 1 } as const;
export const ZERO_BYTES32 = `0x${"00".repeat(32)}` as const;
const EIP1271_MAGIC = "0x1626ba7e";

export { SEAPORT_EIP712_TYPES };

/** OrderComponents with integers as decimal strings and lower-case addresses (how D1 keeps them). */
export interface OrderItemJson {
  itemType: number;
  token: string;
  identifierOrCriteria: string;
  startAmount: string;
  endAmount: string;
}
export interface ConsiderationItemJson extends OrderItemJson {
  recipient: string;
}
export interface OrderComponentsJson {
  offerer: string;
  zone: string;
  offer: OrderItemJson[];
  consideration: ConsiderationItemJson[];
  orderType: number;
  startTime: string;
  endTime: string;
  zoneHash: string;
  salt: string;
  conduitKey: string;
  counter: string;
}

export const seaportDomain = (chainId: number, seaport: string) => ({
  name: "Seaport",
  version: "1.6",
  chainId,
  verifyingContract: seaport as Address,
});

function toMessage(order: OrderComponentsJson) {
  const item = (i: OrderItemJson) => ({
    itemType: i.itemType,
    token: i.token as Address,
    identifierOrCriteria: BigInt(i.identifierOrCriteria),
    startAmount: BigInt(i.startAmount),
    endAmount: BigInt(i.endAmount),
  });
  return {
    offerer: order.offerer as Address,
    zone: order.zone as Address,
    offer: order.offer.map(item),
    consideration: order.consideration.map((c) => ({ ...item(c), recipient: c.recipient as Address })),
    orderType: order.orderType,
    startTime: BigInt(order.startTime),
    endTime: BigInt(order.endTime),
    zoneHash: order.zoneHash as Hex,
    salt: BigInt(order.salt),
    conduitKey: order.conduitKey as Hex,
    counter: BigInt(order.counter),
  };
}

/** Seaport's order hash: the EIP-712 struct hash of OrderComponents (what getOrderHash returns). */
export function orderHashOf(order: OrderComponentsJson): string {
  return hashStruct({ types: SEAPORT_EIP712_TYPES, primaryType: "OrderComponents", data: toMessage(order) }).toLowerCase();
}

/** The typed data a wallet signs (eth_signTypedData_v4), numbers as decimal strings. */
export function orderTypedData(chainId: number, seaport: string, order: OrderComponentsJson) {
  return {
    domain: seaportDomain(chainId, seaport),
    types: SEAPORT_EIP712_TYPES,
    primaryType: "OrderComponents" as const,
    message: order,
  };
}

const orderDigest = (chainId: number, seaport: string, order: OrderComponentsJson) =>
  hashTypedData({ domain: seaportDomain(chainId, seaport), types: SEAPORT_EIP712_TYPES, primaryType: "OrderComponents", message: toMessage(order) });

/** 64-byte EIP-2098 signatures (seaport-js signs that way) expanded to 65 bytes; null if neither. */
export function normalizeSignature(signature: string): Hex | null {
  if (/^0x[0-9a-fA-F]{130}$/.test(signature)) return signature as Hex;
  if (/^0x[0-9a-fA-F]{128}$/.test(signature)) return serializeSignature(compactSignatureToSignature(parseCompactSignature(signature as Hex)));
  return null;
}

/**
 * Whether `signature` is the offerer's: ECDSA recovery for an EOA, EIP-1271 `isValidSignature`
 * when the offerer has code (as Seaport itself decides).
 */
export async function isOffererSignature(rpcUrl: string, chainId: number, seaport: string, order: OrderComponentsJson, signature: string): Promise<boolean> {
  const digest = orderDigest(chainId, seaport, order);
  const client = publicClient(rpcUrl);
  const code = await client.getCode({ address: order.offerer as Address });
  if (code && code !== "0x") {
    try {
      const magic = await retryRead(() =>
        client.readContract({
          address: order.offerer as Address,
          abi: parseAbi(["function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)"]),
          functionName: "isValidSignature",
          args: [digest, signature as Hex],
        }),
      );
      return magic.toLowerCase() === EIP1271_MAGIC;
    } catch (error) {
      // The wallet's answer (a revert, no such function) is a "no"; no answer at all is not.
      if (classifySimulationError(error).kind === "unavailable") throw new ChainUnavailableError("isValidSignature failed", { cause: error });
      return false;
    }
  }
  const full = normalizeSignature(signature);
  if (!full) return false;
  try {
    return (await recoverAddress({ hash: digest, signature: full })).toLowerCase() === order.offerer.toLowerCase();
  } catch {
    return false;
  }
}

export interface OnChainOrderStatus {
  isCancelled: boolean;
  totalFilled: bigint;
  totalSize: bigint;
}

/** Seaport has filled every unit of the order (a never-touched order has totalSize 0). */
export const isFullyFilled = (status: OnChainOrderStatus) => status.totalSize > 0n && status.totalFilled >= status.totalSize;

export async function seaportOrderStatus(rpcUrl: string, seaport: string, orderHash: string): Promise<OnChainOrderStatus> {
  const [, isCancelled, totalFilled, totalSize] = await publicClient(rpcUrl).readContract({
    address: seaport as Address,
    abi: seaportAbi,
    functionName: "getOrderStatus",
    args: [orderHash as Hex],
  });
  return { isCancelled, totalFilled, totalSize };
}

export async function seaportCounter(rpcUrl: string, seaport: string, offerer: string): Promise<bigint> {
  return publicClient(rpcUrl).readContract({ address: seaport as Address, abi: seaportAbi, functionName: "getCounter", args: [offerer as Address] });
}

/** The address that moves the offerer's tokens: Seaport itself, or the conduit of `conduitKey`. */
export async function seaportOperator(rpcUrl: string, seaport: string, conduitKey: string): Promise<string | null> {
  if (/^0x0{64}$/.test(conduitKey)) return seaport.toLowerCase();
  const client = publicClient(rpcUrl);
  const [, , controller] = await client.readContract({ address: seaport as Address, abi: seaportAbi, functionName: "information" });
  const [conduit, exists] = await client.readContract({
    address: controller,
    abi: parseAbi(["function getConduit(bytes32 conduitKey) view returns (address conduit, bool exists)"]),
    functionName: "getConduit",
    args: [conduitKey as Hex],
  });
  return exists ? conduit.toLowerCase() : null;
}

export const encodeSetApprovalForAll = (operator: string) =>
  encodeFunctionData({ abi: parseAbi(["function setApprovalForAll(address operator, bool approved)"]), functionName: "setApprovalForAll", args: [operator as Address, true] });
