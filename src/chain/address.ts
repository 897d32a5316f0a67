import { getAddress, isAddress } from "viem";

/** EIP-55 checksum of a 20-byte hex address (any case in). */
export const checksumAddress = (address: string): string => getAddress(address);

/** True for 0x + 40 hex characters in any case (checksum not enforced on input). */
export const isHexAddress = (value: string): boolean => isAddress(value, { strict: false });
