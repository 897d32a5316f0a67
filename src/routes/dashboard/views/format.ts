/** An integer amount in the smallest unit as a decimal of `decimals` places, trailing zeros cut. */
export function formatUnits(amount: string, decimals = 18): string {
  const value = BigInt(amount);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, "0");
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, "");
  return `${negative ? "-" : ""}${whole}${fraction ? `.${fraction}` : ""}`;
}

/** "1 key it created", "3 keys it created" (decision 110's revocations). */
export const keysItCreated = (count: number) => `${count} key${count === 1 ? "" : "s"} it created`;
