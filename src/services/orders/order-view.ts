import { checksumAddress } from "../../chain/address";
import type { OrderComponentsJson } from "../../chain/seaport";
import type { orders } from "../../db/schema";
import { listingView } from "../views";

type OrderRow = typeof orders.$inferSelect;

/** The status as of `nowMs`: an active order past its end time is expired before the sweep records it. */
function orderStatusAt(row: Pick<OrderRow, "status" | "endTime">, nowMs: number): OrderRow["status"] {
  return row.status === "active" && row.endTime.getTime() <= nowMs ? "expired" : row.status;
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
    parameters: JSON.parse(row.parameters) as OrderComponentsJson,
    signature: row.signature,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type OrderView = ReturnType<typeof orderView>;
