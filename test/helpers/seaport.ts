import { env } from "cloudflare:workers";
import type { Address, Hex } from "viem";
import type { freshWallet } from "./wallets";
import { SEAPORT_EIP712_TYPES } from "../../src/chain/seaport";

export interface SeaportJsOrder {
  parameters: Record<string, unknown> & { offer: unknown[]; consideration: { recipient: string; startAmount: string }[]; counter: string; endTime: string };
  signature: string;
  orderHash: string;
}

/** A listing made by seaport-js (Node side, test/fixtures/seaport-js-client.ts). */
export async function seaportJsList(request: {
  privateKey: string;
  token: string;
  tokenId: string;
  price: bigint;
  fees?: { recipient: string; amount: bigint }[];
  endTime?: number;
  /** An ERC20 the price is paid in (native currency when absent). */
  currency?: string;
}) {
  const response = await fetch(`${env.SEAPORT_CLIENT_URL}/list`, {
    method: "POST",
    body: JSON.stringify({
      ...request,
      price: request.price.toString(),
      fees: request.fees?.map((fee) => ({ recipient: fee.recipient, amount: fee.amount.toString() })),
      endTime: request.endTime?.toString(),
    }),
  });
  const body = (await response.json()) as SeaportJsOrder & { error?: string };
  if (!response.ok) throw new Error(`seaport-js list: ${body.error}`);
  return body;
}

/** Listings of several tokens of `token` signed at once with a seaport-js bulk-order signature. */
export async function seaportJsListBulk(request: { privateKey: string; token: string; items: { tokenId: string; price: bigint }[] }) {
  const response = await fetch(`${env.SEAPORT_CLIENT_URL}/list-bulk`, {
    method: "POST",
    body: JSON.stringify({ ...request, items: request.items.map((item) => ({ tokenId: item.tokenId, price: item.price.toString() })) }),
  });
  const body = (await response.json()) as SeaportJsOrder[] & { error?: string };
  if (!response.ok) throw new Error(`seaport-js list-bulk: ${body.error}`);
  return body;
}

export async function seaportJsCancel(privateKey: string, parameters: SeaportJsOrder["parameters"]) {
  const response = await fetch(`${env.SEAPORT_CLIENT_URL}/cancel`, { method: "POST", body: JSON.stringify({ privateKey, parameters }) });
  if (!response.ok) throw new Error(`seaport-js cancel: ${await response.text()}`);
}

// The same EIP-712 types the service hashes with.
const TYPES = SEAPORT_EIP712_TYPES;

type Json = Record<string, any>;
export const toBig = (order: Json) => ({
  ...order,
  offer: order.offer.map((i: Json) => ({ ...i, identifierOrCriteria: BigInt(i.identifierOrCriteria), startAmount: BigInt(i.startAmount), endAmount: BigInt(i.endAmount) })),
  consideration: order.consideration.map((i: Json) => ({ ...i, identifierOrCriteria: BigInt(i.identifierOrCriteria), startAmount: BigInt(i.startAmount), endAmount: BigInt(i.endAmount) })),
  startTime: BigInt(order.startTime),
  endTime: BigInt(order.endTime),
  salt: BigInt(order.salt),
  counter: BigInt(order.counter),
});

/** Signs OrderComponents (decimal-string form) with viem, for a chosen domain. */
export async function viemSignOrder(wallet: Awaited<ReturnType<typeof freshWallet>>, order: Json, domain: { chainId: number; verifyingContract: string }) {
  return wallet.account.signTypedData({
    domain: { name: "Seaport", version: "1.6", chainId: domain.chainId, verifyingContract: domain.verifyingContract as Address },
    types: TYPES,
    primaryType: "OrderComponents",
    message: toBig(order) as never,
  }) as Promise<Hex>;
}

/** A full-open native-currency listing of one ERC721 token, as plain JSON. */
export function listingComponents(offerer: string, token: string, tokenId: string, price: bigint, overrides: Json = {}) {
  const now = Math.floor(Date.now() / 1000);
  return {
    offerer,
    zone: "0x0000000000000000000000000000000000000000",
    offer: [{ itemType: 2, token, identifierOrCriteria: tokenId, startAmount: "1", endAmount: "1" }],
    consideration: [{ itemType: 0, token: "0x0000000000000000000000000000000000000000", identifierOrCriteria: "0", startAmount: price.toString(), endAmount: price.toString(), recipient: offerer }],
    orderType: 0,
    startTime: String(now - 60),
    endTime: String(now + 86_400),
    zoneHash: `0x${"00".repeat(32)}`,
    salt: String(Math.floor(Math.random() * 1e12)),
    conduitKey: `0x${"00".repeat(32)}`,
    counter: "0",
    ...overrides,
  };
}
