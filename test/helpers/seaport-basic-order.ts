// Seaport 1.6 listings signed with viem alone and filled on chain by a third party, the way a
// marketplace other than Mintyard would: the indexer must pick up the fill from the logs.
import { env } from "cloudflare:workers";
import { encodeFunctionData, zeroAddress, zeroHash, type Address, type Hex, type LocalAccount } from "viem";
import { seaportAbi } from "../../src/chain/artifacts/seaport";
import { chainClient } from "./chain";
import { SEAPORT_EIP712_TYPES } from "../../src/chain/seaport";

// The same EIP-712 types the service hashes with.
const ORDER_TYPES = SEAPORT_EIP712_TYPES;

export const seaportAddress = () => (JSON.parse(env.CHAINS) as Record<string, { seaportAddress: string }>)["1868"]!.seaportAddress as Address;

export interface SignedListing {
  components: {
    offerer: Address;
    zone: Address;
    offer: { itemType: number; token: Address; identifierOrCriteria: bigint; startAmount: bigint; endAmount: bigint }[];
    consideration: { itemType: number; token: Address; identifierOrCriteria: bigint; startAmount: bigint; endAmount: bigint; recipient: Address }[];
    orderType: number;
    startTime: bigint;
    endTime: bigint;
    zoneHash: Hex;
    salt: bigint;
    conduitKey: Hex;
    counter: bigint;
  };
  signature: Hex;
  orderHash: string;
  /** Total the buyer pays. */
  price: bigint;
}

/** A full-open ERC-721 listing paid in ETH: `price - fee` to the seller, `fee` to `feeRecipient`. */
export async function signListing(options: { seller: LocalAccount; token: string; tokenId: bigint; price: bigint; fee: bigint; feeRecipient: string }): Promise<SignedListing> {
  const seaport = seaportAddress();
  const counter = await chainClient().readContract({ address: seaport, abi: seaportAbi, functionName: "getCounter", args: [options.seller.address] });
  const item = (amount: bigint, recipient: string) => ({
    itemType: 0,
    token: zeroAddress,
    identifierOrCriteria: 0n,
    startAmount: amount,
    endAmount: amount,
    recipient: recipient as Address,
  });
  const components: SignedListing["components"] = {
    offerer: options.seller.address,
    zone: zeroAddress,
    offer: [{ itemType: 2, token: options.token as Address, identifierOrCriteria: options.tokenId, startAmount: 1n, endAmount: 1n }],
    consideration: [item(options.price - options.fee, options.seller.address), item(options.fee, options.feeRecipient)],
    orderType: 0,
    startTime: 0n,
    endTime: 2n ** 40n,
    zoneHash: zeroHash,
    salt: BigInt(Math.floor(Math.random() * 2 ** 48)),
    conduitKey: zeroHash,
    counter,
  };
  const signature = await options.seller.signTypedData!({
    domain: { name: "Seaport", version: "1.6", chainId: 1868, verifyingContract: seaport },
    types: ORDER_TYPES,
    primaryType: "OrderComponents",
    message: components,
  });
  const orderHash = await chainClient().readContract({ address: seaport, abi: seaportAbi, functionName: "getOrderHash", args: [components] });
  return { components, signature, orderHash: orderHash.toLowerCase(), price: options.price };
}

/** Calldata of fulfillBasicOrder_efficient_6GL6yc (ETH for one ERC-721) for `listing`. */
export function basicFulfilment(listing: SignedListing): Hex {
  const [sellerItem, ...fees] = listing.components.consideration;
  const nft = listing.components.offer[0]!;
  return encodeFunctionData({
    abi: seaportAbi,
    functionName: "fulfillBasicOrder_efficient_6GL6yc",
    args: [
      {
        considerationToken: zeroAddress,
        considerationIdentifier: 0n,
        considerationAmount: sellerItem!.startAmount,
        offerer: listing.components.offerer,
        zone: zeroAddress,
        offerToken: nft.token,
        offerIdentifier: nft.identifierOrCriteria,
        offerAmount: 1n,
        basicOrderType: 0, // ETH_TO_ERC721_FULL_OPEN
        startTime: listing.components.startTime,
        endTime: listing.components.endTime,
        zoneHash: zeroHash,
        salt: listing.components.salt,
        offererConduitKey: zeroHash,
        fulfillerConduitKey: zeroHash,
        totalOriginalAdditionalRecipients: BigInt(fees.length),
        additionalRecipients: fees.map((fee) => ({ amount: fee.startAmount, recipient: fee.recipient })),
        signature: listing.signature,
      },
    ],
  });
}

export const cancelCalldata = (listing: SignedListing): Hex =>
  encodeFunctionData({ abi: seaportAbi, functionName: "cancel", args: [[listing.components]] });

export const incrementCounterCalldata = (): Hex => encodeFunctionData({ abi: seaportAbi, functionName: "incrementCounter" });
