// What Mintyard lists (DESIGN §4 Orders): one ERC721/ERC1155 offer item, fixed prices in one
// currency, the first consideration paying the offerer, open (unrestricted) orders.
import type { OrderComponentsJson } from "../../chain/seaport";
import { AppError } from "../../lib/errors";
import { MAX_UINT256 } from "../../lib/uint256";

export interface OrderSummary {
  contract: string;
  tokenId: string;
  schema: "ERC721" | "ERC1155";
  quantity: bigint;
  /** null = native currency. */
  currency: string | null;
  totalPrice: bigint;
  unitPrice: bigint;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const UINT = /^(0|[1-9][0-9]{0,77})$/;
const HEX_UINT = /^0x[0-9a-fA-F]{1,64}$/;
const ZERO = "0x0000000000000000000000000000000000000000";

const invalid = (path: string, message: string) =>
  new AppError("validation_error", `${path}: ${message}`, [{ path, message }]);

/** Accepts numbers or strings for integers and any-case addresses; returns the canonical JSON form. */
export function canonicalOrder(raw: Record<string, unknown>, path = "body.parameters"): OrderComponentsJson {
  // Clients differ: seaport-js sends the salt as hex, others decimal strings or numbers.
  const uint = (value: unknown, at: string): string => {
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return String(value);
    if (typeof value === "string" && UINT.test(value)) {
      if (BigInt(value) > MAX_UINT256) throw invalid(`${path}.${at}`, "must fit in uint256");
      return value;
    }
    if (typeof value === "string" && HEX_UINT.test(value)) return BigInt(value).toString();
    throw invalid(`${path}.${at}`, "must be a non-negative integer (decimal or 0x-hex)");
  };
  const address = (value: unknown, at: string): string => {
    if (typeof value !== "string" || !ADDRESS.test(value)) throw invalid(`${path}.${at}`, "must be a 20-byte hex address");
    return value.toLowerCase();
  };
  const bytes32 = (value: unknown, at: string): string => {
    if (typeof value !== "string" || !BYTES32.test(value)) throw invalid(`${path}.${at}`, "must be 32-byte hex");
    return value.toLowerCase();
  };
  const items = (value: unknown, at: string) => {
    if (!Array.isArray(value)) throw invalid(`${path}.${at}`, "must be an array");
    return value.map((item: Record<string, unknown>, index) => ({
      itemType: Number(uint(item?.itemType, `${at}.${index}.itemType`)),
      token: address(item?.token, `${at}.${index}.token`),
      identifierOrCriteria: uint(item?.identifierOrCriteria, `${at}.${index}.identifierOrCriteria`),
      startAmount: uint(item?.startAmount, `${at}.${index}.startAmount`),
      endAmount: uint(item?.endAmount, `${at}.${index}.endAmount`),
    }));
  };
  const consideration = items(raw.consideration, "consideration").map((item, index) => ({
    ...item,
    recipient: address((raw.consideration as Record<string, unknown>[])[index]?.recipient, `consideration.${index}.recipient`),
  }));
  return {
    offerer: address(raw.offerer, "offerer"),
    zone: address(raw.zone, "zone"),
    offer: items(raw.offer, "offer"),
    consideration,
    orderType: Number(uint(raw.orderType, "orderType")),
    startTime: uint(raw.startTime, "startTime"),
    endTime: uint(raw.endTime, "endTime"),
    zoneHash: bytes32(raw.zoneHash, "zoneHash"),
    salt: uint(raw.salt, "salt"),
    conduitKey: bytes32(raw.conduitKey, "conduitKey"),
    counter: uint(raw.counter, "counter"),
  };
}

export function summarizeListing(order: OrderComponentsJson, path = "body.parameters"): OrderSummary {
  if (order.offer.length !== 1) throw invalid(`${path}.offer`, "must hold exactly one item");
  const offer = order.offer[0]!;
  if (offer.itemType !== 2 && offer.itemType !== 3) throw invalid(`${path}.offer.0.itemType`, "must be ERC721 (2) or ERC1155 (3)");
  if (offer.startAmount !== offer.endAmount) throw invalid(`${path}.offer.0`, "ascending/descending amounts are not supported");
  const quantity = BigInt(offer.startAmount);
  if (quantity === 0n || (offer.itemType === 2 && quantity !== 1n)) throw invalid(`${path}.offer.0.startAmount`, "must be 1 for ERC721, at least 1 for ERC1155");
  if (order.orderType !== 0 && order.orderType !== 1) throw invalid(`${path}.orderType`, "only open orders (0 or 1) are listed");
  if (order.consideration.length === 0) throw invalid(`${path}.consideration`, "must not be empty");
  const first = order.consideration[0]!;
  if (first.recipient !== order.offerer) throw invalid(`${path}.consideration.0.recipient`, "the first consideration item must pay the offerer");
  const currencyToken = first.itemType === 0 ? ZERO : first.token;
  for (const [index, item] of order.consideration.entries()) {
    if (item.itemType !== 0 && item.itemType !== 1) throw invalid(`${path}.consideration.${index}.itemType`, "must be native (0) or ERC20 (1)");
    if (item.itemType !== first.itemType || (item.itemType === 0 ? ZERO : item.token) !== currencyToken) {
      throw invalid(`${path}.consideration.${index}`, "all consideration items must be in one currency");
    }
    if (item.startAmount !== item.endAmount) throw invalid(`${path}.consideration.${index}`, "ascending/descending amounts are not supported");
    // Seaport refuses these at fill time (UnusedItemParameters): the listing could never be bought.
    // (An ERC20 item naming no token is refused by the on-chain currency check.)
    if (item.itemType === 0 && item.token !== ZERO) throw invalid(`${path}.consideration.${index}.token`, "must be the zero address for native currency");
    if (item.identifierOrCriteria !== "0") throw invalid(`${path}.consideration.${index}.identifierOrCriteria`, "must be 0 for a native or ERC20 payment");
    // Seaport refuses to transfer an amount of 0 (MissingItemAmount) on every fill route; so no
    // listing is free either (it would become the token's best listing and the collection's floor).
    if (BigInt(item.startAmount) === 0n) throw invalid(`${path}.consideration.${index}.startAmount`, "must be above 0: Seaport cannot fill an order with a payment of 0");
    // ERC20s (OpenZeppelin's and most others) refuse a transfer to the zero address.
    if (item.itemType === 1 && item.recipient === ZERO) throw invalid(`${path}.consideration.${index}.recipient`, "must not be the zero address for an ERC20 payment");
  }
  // Seaport fills only while startTime <= now < endTime: an empty window can never be bought.
  if (BigInt(order.startTime) >= BigInt(order.endTime)) throw invalid(`${path}.endTime`, "must be after startTime");
  const totalPrice = order.consideration.reduce((sum, item) => sum + BigInt(item.startAmount), 0n);
  // No buyer can pay more than uint256, and the price sort key holds 78 digits.
  if (totalPrice > MAX_UINT256) throw invalid(`${path}.consideration`, "the amounts must add up to at most uint256");
  // The unit price (rounded down) is what reads, sorting and the floor show: it must not be 0.
  if (totalPrice < quantity) throw invalid(`${path}.consideration`, `the amounts must add up to at least the quantity (${quantity}): the unit price would be 0`);
  return {
    contract: offer.token,
    tokenId: offer.identifierOrCriteria,
    schema: offer.itemType === 2 ? "ERC721" : "ERC1155",
    quantity,
    currency: first.itemType === 0 ? null : first.token,
    totalPrice,
    unitPrice: totalPrice / quantity,
  };
}
