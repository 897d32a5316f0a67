// Minimal Seaport 1.6 basic order (ETH for one ERC-721), signed with viem's signTypedData and
// filled with fulfillBasicOrder_efficient_6GL6yc. Used by the gas benchmark and the tests.
import { createRequire } from "node:module";
import { zeroAddress, zeroHash } from "viem";

// Seaport's EIP-712 types as seaport-js (a dev dependency, CommonJS) defines them: Node cannot
// import the service's TypeScript copy (src/chain/seaport-types.ts), which the orders tests
// check against seaport-js through identical order hashes.
const require = createRequire(import.meta.url);
export const SEAPORT_ORDER_TYPES = require("@opensea/seaport-js/lib/constants").EIP_712_ORDER_TYPE;

const NATIVE = 0;
const ERC721 = 2;

/**
 * Signs a full-open listing of `tokenId` for `price` wei (of which `fee` goes to
 * `feeRecipient`) and returns the fulfillBasicOrder_efficient_6GL6yc argument.
 * `seller` is a viem local account; `counter` is seaport.getCounter(seller).
 */
export async function signBasicListing({ seller, seaport, chainId, token, tokenId, price, fee = 0n, feeRecipient, counter = 0n, salt = 1n, startTime = 0n, endTime = 2n ** 40n }) {
  const consideration = [
    { itemType: NATIVE, token: zeroAddress, identifierOrCriteria: 0n, startAmount: price - fee, endAmount: price - fee, recipient: seller.address },
  ];
  if (fee > 0n) {
    consideration.push({ itemType: NATIVE, token: zeroAddress, identifierOrCriteria: 0n, startAmount: fee, endAmount: fee, recipient: feeRecipient });
  }
  const order = {
    offerer: seller.address,
    zone: zeroAddress,
    offer: [{ itemType: ERC721, token, identifierOrCriteria: tokenId, startAmount: 1n, endAmount: 1n }],
    consideration,
    orderType: 0, // FULL_OPEN
    startTime,
    endTime,
    zoneHash: zeroHash,
    salt,
    conduitKey: zeroHash,
    counter,
  };
  const signature = await seller.signTypedData({
    domain: { name: "Seaport", version: "1.6", chainId, verifyingContract: seaport },
    types: SEAPORT_ORDER_TYPES,
    primaryType: "OrderComponents",
    message: order,
  });
  return {
    considerationToken: zeroAddress,
    considerationIdentifier: 0n,
    considerationAmount: price - fee,
    offerer: seller.address,
    zone: zeroAddress,
    offerToken: token,
    offerIdentifier: tokenId,
    offerAmount: 1n,
    basicOrderType: 0, // ETH_TO_ERC721_FULL_OPEN
    startTime,
    endTime,
    zoneHash: zeroHash,
    salt,
    offererConduitKey: zeroHash,
    fulfillerConduitKey: zeroHash,
    totalOriginalAdditionalRecipients: fee > 0n ? 1n : 0n,
    additionalRecipients: fee > 0n ? [{ amount: fee, recipient: feeRecipient }] : [],
    signature,
  };
}
