/** The largest uint256: Solidity's amounts, prices and token ids, and what viem will encode. */
export const MAX_UINT256 = 2n ** 256n - 1n;
