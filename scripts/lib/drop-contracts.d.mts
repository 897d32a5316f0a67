import type { Account, PublicClient, WalletClient } from "viem";
import type { LoadedArtifact } from "./artifacts.mjs";

export type DropContractKey = "dropImplementationAddress" | "dropFactoryAddress";
export declare const DROP_SALTS: Record<DropContractKey, `0x${string}`>;
export declare class DeployError extends Error {
  code: string;
  constructor(code: string, message: string);
}
export interface DropContract {
  key: DropContractKey;
  name: string;
  salt: `0x${string}`;
  initcode: `0x${string}`;
  address: `0x${string}`;
  artifact: LoadedArtifact;
  immutables: { functionName: string; expected: `0x${string}` }[];
}
export type ContractStatus = { status: "present" | "missing" } | { status: "different"; detail: string };
export declare function dropContracts(): DropContract[];
export declare function dropContractAddresses(): Record<DropContractKey, `0x${string}`>;
export declare function inspectContract(client: PublicClient, contract: DropContract): Promise<ContractStatus & { detail?: string }>;
export declare function assertCreate2Deployer(client: PublicClient): Promise<void>;
export declare function inspectDropContracts(client: PublicClient): Promise<(DropContract & ContractStatus & { detail?: string })[]>;
export declare function deployDropContracts(client: PublicClient, wallet: WalletClient): Promise<Record<DropContractKey, `0x${string}`>>;
export declare function estimateDeployments(
  client: PublicClient,
  account: Account,
  contracts: DropContract[],
): Promise<{ deployments: { contract: DropContract; data: `0x${string}`; gas: bigint; l1Fee: bigint }[]; fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }; maxCost: bigint }>;
