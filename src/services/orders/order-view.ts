import { checksumAddress } from "../../chain/address";
import type { OrderComponentsJson } from "../../chain/seaport";
import type { orders } from "../../db/schema";
import { listingView } from "../views";

type OrderRow = typeof orders.$inferSelect;

/** The status as of `nowMs`: an active order past its end time is expired before the sweep records it. */
function orderStatusAt(row: Pick<OrderRow, "status" | "endTime">, nowMs: number): OrderRow["status"] {
  return row.status === "active" && row.endTime.getTime() <= nowMs ? "expired" : row.status;
}

/**
 * The order as stored (lower-case addresses, how it is hashed and compared) with its addresses
 * EIP-55 checksummed for the API (DESIGN §3). EIP-712 encodes an address as its 20 bytes, so the
 * signature and the order hash do not depend on the case.
 */
export function checksummedOrder(order: OrderComponentsJson): OrderComponentsJson {
  return {
    ...order,
    offerer: checksumAddress(order.offerer),
    zone: checksumAddress(order.zone),
    offer: order.offer.map((item) => ({ ...item, token: checksumAddress(item.token) })),
    consideration: order.consideration.map((item) => ({ ...item, token: checksumAddress(item.token), recipient: checksumAddress(item.recipient) })),
  };
}

export function orderView(row: OrderRow) {
  return {
    ...listingView(row),
    chainId: row.chainId,
    status: orderStatusAt(row, Date.now()),
    contractAddress: checksumAddress(row.contractAddress),
    tokenId: row.tokenId,
    currencyAddress: row.currencyAddress ? checksumAddress(row.currencyAddress) : null,
    startTime: row.startTime.toISOString(),
    endTime: row.endTime.toISOString(),
    parameters: checksummedOrder(JSON.parse(row.parameters) as OrderComponentsJson),
    signature: row.signature,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type OrderView = ReturnType<typeof orderView>;
