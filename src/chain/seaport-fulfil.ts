// Calldata for the project wallet to fill a listing: the basic-order route when the order fits
// it (one NFT, every payment in one currency, native or ERC20, the offerer paid first — the
// cheapest path), else fulfillOrder.
import { encodeFunctionData, type Address, type Hex } from "viem";
import { seaportAbi } from "./artifacts/seaport";
import { ITEM_TYPE, type OrderComponentsJson } from "./seaport";

export interface Fulfilment {
  data: Hex;
  /** Native currency the call must carry. */
  value: bigint;
  route: "basic" | "standard";
}

const ZERO = "0x0000000000000000000000000000000000000000";

function fitsBasicOrder(order: OrderComponentsJson): boolean {
  const [offer] = order.offer;
  const [first] = order.consideration;
  return (
    order.offer.length === 1 &&
    !!offer &&
    (offer.itemType === ITEM_TYPE.ERC721 || offer.itemType === ITEM_TYPE.ERC1155) &&
    !!first &&
    first.recipient.toLowerCase() === order.offerer.toLowerCase() &&
    (first.itemType === ITEM_TYPE.NATIVE || first.itemType === ITEM_TYPE.ERC20) &&
    order.consideration.every((c) => c.itemType === first.itemType && c.token.toLowerCase() === first.token.toLowerCase() && c.startAmount === c.endAmount) &&
    order.zone.toLowerCase() === ZERO &&
    (order.orderType === 0 || order.orderType === 1)
  );
}

const nativeTotal = (order: OrderComponentsJson) =>
  order.consideration.filter((c) => c.itemType === ITEM_TYPE.NATIVE).reduce((sum, c) => sum + BigInt(c.startAmount), 0n);

/** `signature` as stored at submit (offererSignature's form): Seaport takes it unchanged. */
export function encodeFulfilment(order: OrderComponentsJson, signature: string): Fulfilment {
  const full = signature as Hex;
  if (fitsBasicOrder(order)) {
    const offer = order.offer[0]!;
    const [first, ...rest] = order.consideration;
    // BasicOrderType: route (ETH→ERC721 = 0, ETH→ERC1155 = 1, ERC20→ERC721 = 2, ERC20→ERC1155 = 3) × 4 + orderType.
    const route = (first!.itemType === ITEM_TYPE.ERC20 ? 2 : 0) + (offer.itemType === ITEM_TYPE.ERC721 ? 0 : 1);
    const basicOrderType = route * 4 + order.orderType;
    return {
      route: "basic",
      value: nativeTotal(order),
      data: encodeFunctionData({
        abi: seaportAbi,
        functionName: "fulfillBasicOrder_efficient_6GL6yc",
        args: [
          {
            considerationToken: (first!.itemType === ITEM_TYPE.ERC20 ? first!.token : ZERO) as Address,
            considerationIdentifier: 0n,
            considerationAmount: BigInt(first!.startAmount),
            offerer: order.offerer as Address,
            zone: order.zone as Address,
            offerToken: offer.token as Address,
            offerIdentifier: BigInt(offer.identifierOrCriteria),
            offerAmount: BigInt(offer.startAmount),
            basicOrderType,
            startTime: BigInt(order.startTime),
            endTime: BigInt(order.endTime),
            zoneHash: order.zoneHash as Hex,
            salt: BigInt(order.salt),
            offererConduitKey: order.conduitKey as Hex,
            fulfillerConduitKey: `0x${"00".repeat(32)}`,
            totalOriginalAdditionalRecipients: BigInt(rest.length),
            additionalRecipients: rest.map((c) => ({ amount: BigInt(c.startAmount), recipient: c.recipient as Address })),
            signature: full,
          },
        ],
      }),
    };
  }
  const { counter: _notPartOfOrderParameters, ...parameters } = order;
  return {
    route: "standard",
    value: nativeTotal(order),
    data: encodeFunctionData({
      abi: seaportAbi,
      functionName: "fulfillOrder",
      args: [
        {
          parameters: {
            ...parameters,
            offerer: order.offerer as Address,
            zone: order.zone as Address,
            offer: order.offer.map((i) => ({ ...i, token: i.token as Address, identifierOrCriteria: BigInt(i.identifierOrCriteria), startAmount: BigInt(i.startAmount), endAmount: BigInt(i.endAmount) })),
            consideration: order.consideration.map((c) => ({
              ...c,
              token: c.token as Address,
              recipient: c.recipient as Address,
              identifierOrCriteria: BigInt(c.identifierOrCriteria),
              startAmount: BigInt(c.startAmount),
              endAmount: BigInt(c.endAmount),
            })),
            startTime: BigInt(order.startTime),
            endTime: BigInt(order.endTime),
            zoneHash: order.zoneHash as Hex,
            salt: BigInt(order.salt),
            conduitKey: order.conduitKey as Hex,
            totalOriginalConsiderationItems: BigInt(order.consideration.length),
          },
          signature: full,
        },
        `0x${"00".repeat(32)}`,
      ],
    }),
  };
}

/**
 * A fill's gas limit when it cannot be simulated: it goes out right behind the ERC20 approval it
 * needs, before that approval is mined. Measured on Seaport 1.6 with the test token
 * (test/orders/buy-erc20.test.ts): an ERC20 → ERC721 basic order paying two payees who held none
 * of the token used 197,902 gas; this allows 350k for that order, room for costlier token
 * contracts, and unused gas is not charged.
 */
export function fillGasLimitWithoutEstimate(order: OrderComponentsJson): bigint {
  return 250_000n + 50_000n * BigInt(order.consideration.length);
}
