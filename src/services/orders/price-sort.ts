// The text key listings sort by: the currency class first ('0' native, '1' an ERC20), then the
// unit price zero-padded to uint256's 78 digits. Raw amounts of different currencies do not
// compare (100 units of a 6-decimal token are not cheaper than 1 ETH), so a native price always
// ranks before any token price, and token prices only among themselves (decisions 22 and 27).
// A native key is still the price's digits, so SQL min() over native keys parses as a number.
const UINT256_DIGITS = 78;
const NATIVE_CLASS = "0";
export const ERC20_CLASS = "1";

export function priceSortKey(unitPrice: bigint, currencyAddress: string | null): string {
  return (currencyAddress ? ERC20_CLASS : NATIVE_CLASS) + unitPrice.toString().padStart(UINT256_DIGITS, "0");
}
