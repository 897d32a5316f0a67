// Seaport 1.6 orders: EIP-712 hashing exactly as Seaport does it, signature checks in Seaport's
// order (ECDSA with 65-byte or EIP-2098 64-byte signatures, then EIP-1271 for contract wallets)
// and the reads an order's validity depends on.
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
import { conduitControllerAbi } from "./artifacts/conduit-controller";
import { seaportAbi } from "./artifacts/seaport";
import { ChainUnavailableError } from "./chain-unavailable";
import { publicClient } from "./client";
import { retryRead } from "./read-retry";
import { classifySimulationError } from "./rpc-errors";
import { bulkOrderSignature } from "./seaport-bulk";
import { SEAPORT_EIP712_TYPES } from "./seaport-types";

export const ITEM_TYPE = { NATIVE: 0, ERC20: 1, ERC721: 2, ERC1155: 3 } as const;
export const ORDER_TYPE = { FULL_OPEN: 0, PARTIAL_OPEN: 1 } as const;
export const ZERO_BYTES32 = `0x${"00".repeat(32)}` as const;
/** Seaport compares the answer's whole first word with the selector, left-aligned and zero-padded. */
const EIP1271_MAGIC_WORD = `0x1626ba7e${"00".repeat(28)}`;
// Read as bytes32, not bytes4: a bytes4 decode drops what follows the selector, which Seaport
// does not (BadContractSignature). An answer shorter than a word fails to decode: a "no".
const isValidSignatureAbi = parseAbi(["function isValidSignature(bytes32 hash, bytes signature) view returns (bytes32)"]);

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

/**
 * The signature in the form Seaport's ECDSA check takes: 65 bytes with v 27 or 28 (v 0 or 1, which
 * some signers produce and Seaport's ecrecover refuses, rewritten), or 64-byte EIP-2098 as given
 * (seaport-js signs that way); null when it can be neither.
 */
function ecdsaForm(signature: string): Hex | null {
  const hex = signature.toLowerCase();
  if (/^0x[0-9a-f]{128}$/.test(hex)) return hex as Hex;
  if (!/^0x[0-9a-f]{130}$/.test(hex)) return null;
  const v = Number.parseInt(hex.slice(-2), 16);
  if (v === 27 || v === 28) return hex as Hex;
  if (v === 0 || v === 1) return `${hex.slice(0, -2)}${(v + 27).toString(16)}` as Hex;
  return null;
}

async function recovers(digest: Hex, signature: Hex, offerer: string): Promise<boolean> {
  try {
    // Out-of-range r or s make the parsers throw: that is a signature of nobody.
    const full = signature.length === 2 + 128 ? serializeSignature(compactSignatureToSignature(parseCompactSignature(signature))) : signature;
    return (await recoverAddress({ hash: digest, signature: full })).toLowerCase() === offerer.toLowerCase();
  } catch {
    return false;
  }
}

/**
 * A stored signature as Seaport takes it. A row stored without decision 86's rewrite may hold an
 * EOA's v 0/1 form, which Seaport refuses; recovery to the offerer tells it apart from a contract wallet's
 * bytes, which stay unchanged. Local work only: no chain read.
 */
export async function signatureForFill(chainId: number, seaport: string, order: OrderComponentsJson, stored: string): Promise<Hex> {
  const ecdsa = ecdsaForm(stored);
  if (ecdsa && ecdsa !== stored.toLowerCase() && (await recovers(orderDigest(chainId, seaport, order), ecdsa, order.offerer))) return ecdsa;
  return stored as Hex;
}

/**
 * The bytes to hand Seaport as the offerer's signature, checked the way Seaport checks them:
 * ECDSA recovery first, of the order's digest or, for a bulk signature, of its tree's (decision
 * 102), then, when the offerer has code, EIP-1271 `isValidSignature` with the order's digest and
 * the bytes unchanged. Null when none accepts it.
 */
export async function offererSignature(rpcUrl: string, chainId: number, seaport: string, order: OrderComponentsJson, signature: string): Promise<Hex | null> {
  const digest = orderDigest(chainId, seaport, order);
  const ecdsa = ecdsaForm(signature);
  if (ecdsa && (await recovers(digest, ecdsa, order.offerer))) return ecdsa;
  const bulk = bulkOrderSignature(seaportDomain(chainId, seaport), orderHashOf(order), signature);
  const bulkEcdsa = bulk && ecdsaForm(bulk.ecdsa);
  if (bulk && bulkEcdsa && (await recovers(bulk.digest, bulkEcdsa, order.offerer))) return `${bulkEcdsa}${signature.slice(bulk.ecdsa.length)}`.toLowerCase() as Hex;
  const client = publicClient(rpcUrl);
  const code = await retryRead(() => client.getCode({ address: order.offerer as Address }));
  if (!code || code === "0x" || !/^0x([0-9a-fA-F]{2})*$/.test(signature)) return null;
  try {
    const word = await retryRead(() =>
      client.readContract({ address: order.offerer as Address, abi: isValidSignatureAbi, functionName: "isValidSignature", args: [digest, signature as Hex] }),
    );
    return word.toLowerCase() === EIP1271_MAGIC_WORD ? (signature.toLowerCase() as Hex) : null;
  } catch (error) {
    // The wallet's answer (a revert, no such function) is a "no"; no answer at all is not.
    if (classifySimulationError(error).kind === "unavailable") throw new ChainUnavailableError("isValidSignature failed", { cause: error });
    return null;
  }
}

export interface OnChainOrderStatus {
  /** Validated on chain (`Seaport.validate`): fills need no signature (decision 103). */
  isValidated: boolean;
  isCancelled: boolean;
  totalFilled: bigint;
  totalSize: bigint;
}

/** How much of the order Seaport has filled (a never-touched order has totalFilled and totalSize 0). */
const filledShare = (status: OnChainOrderStatus): "none" | "part" | "all" =>
  status.totalFilled === 0n ? "none" : status.totalFilled >= status.totalSize ? "all" : "part";

/**
 * Why an order is not fillable as the service fills it, or null. A partly filled order is not:
 * the basic-order route needs an untouched order, and the stored quantity and price are the whole.
 */
export function fillStateProblem(status: OnChainOrderStatus): string | null {
  if (status.isCancelled) return "the order is cancelled on Seaport";
  const filled = filledShare(status);
  if (filled === "all") return "the order is already filled";
  if (filled === "part") return "the order is partly filled on Seaport; only untouched orders are listed and bought";
  return null;
}

/**
 * A listing stored with no signature (`0x`) rests on its validation on chain (decision 103); once
 * that is gone (a reorg dropped the offerer's `validate`), nothing can fill it.
 */
export const validationLost = (storedSignature: string, status: OnChainOrderStatus) => storedSignature === "0x" && !status.isValidated;

/** The listing's end Seaport has recorded, or null while it is untouched: any fill ends a listing, as the indexer's OrderFulfilled does. */
export function seaportFinalStatus(status: OnChainOrderStatus): "cancelled" | "filled" | null {
  if (status.isCancelled) return "cancelled";
  return filledShare(status) === "none" ? null : "filled";
}

export async function seaportOrderStatus(rpcUrl: string, seaport: string, orderHash: string): Promise<OnChainOrderStatus> {
  const [isValidated, isCancelled, totalFilled, totalSize] = await publicClient(rpcUrl).readContract({
    address: seaport as Address,
    abi: seaportAbi,
    functionName: "getOrderStatus",
    args: [orderHash as Hex],
  });
  return { isValidated, isCancelled, totalFilled, totalSize };
}

export async function seaportCounter(rpcUrl: string, seaport: string, offerer: string): Promise<bigint> {
  return publicClient(rpcUrl).readContract({ address: seaport as Address, abi: seaportAbi, functionName: "getCounter", args: [offerer as Address] });
}

export type SeaportOperator = { operator: string } | { refusal: string };

/**
 * The address that moves the offerer's tokens: Seaport itself, or the conduit of `conduitKey`,
 * which must exist and have Seaport's channel open (a conduit executes only for open channels).
 */
export async function seaportOperator(rpcUrl: string, seaport: string, conduitKey: string): Promise<SeaportOperator> {
  if (/^0x0{64}$/.test(conduitKey)) return { operator: seaport.toLowerCase() };
  const client = publicClient(rpcUrl);
  const [, , controller] = await client.readContract({ address: seaport as Address, abi: seaportAbi, functionName: "information" });
  const [conduit, exists] = await client.readContract({ address: controller, abi: conduitControllerAbi, functionName: "getConduit", args: [conduitKey as Hex] });
  if (!exists) return { refusal: "no conduit exists for this key" };
  const open = await client.readContract({ address: controller, abi: conduitControllerAbi, functionName: "getChannelStatus", args: [conduit, seaport as Address] });
  return open ? { operator: conduit.toLowerCase() } : { refusal: "the conduit has no open channel to Seaport, so Seaport cannot move the token through it" };
}

export const encodeSetApprovalForAll = (operator: string) =>
  encodeFunctionData({ abi: parseAbi(["function setApprovalForAll(address operator, bool approved)"]), functionName: "setApprovalForAll", args: [operator as Address, true] });
