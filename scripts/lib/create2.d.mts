import type { PublicClient } from "viem";
export declare const CREATE2_DEPLOYER: `0x${string}`;
export declare const CREATE2_DEPLOYER_CODE: `0x${string}`;
export declare function create2Address(salt: `0x${string}`, initcode: `0x${string}`): `0x${string}`;
export declare function create2Calldata(salt: `0x${string}`, initcode: `0x${string}`): `0x${string}`;
export declare function create2DeployerStatus(client: PublicClient): Promise<"present" | "missing" | "different">;
