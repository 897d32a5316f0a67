import type { LocalAccount } from "viem";
type Hex = `0x${string}`;
export declare const SEAPORT_ORDER_TYPES: Record<string, { name: string; type: string }[]>;
export interface BasicOrderParameters {
  considerationToken: Hex;
  considerationIdentifier: bigint;
  considerationAmount: bigint;
  offerer: Hex;
  zone: Hex;
  offerToken: Hex;
  offerIdentifier: bigint;
  offerAmount: bigint;
  basicOrderType: number;
  startTime: bigint;
  endTime: bigint;
  zoneHash: Hex;
  salt: bigint;
  offererConduitKey: Hex;
  fulfillerConduitKey: Hex;
  totalOriginalAdditionalRecipients: bigint;
  additionalRecipients: { amount: bigint; recipient: Hex }[];
  signature: Hex;
}
export declare function signBasicListing(args: {
  seller: LocalAccount;
  seaport: Hex;
  chainId: number;
  token: Hex;
  tokenId: bigint;
  price: bigint;
  fee?: bigint;
  feeRecipient?: Hex;
  counter?: bigint;
  salt?: bigint;
  startTime?: bigint;
  endTime?: bigint;
}): Promise<BasicOrderParameters>;
