import type { Abi } from "viem";
export declare function loadArtifact(file: string): { abi: Abi; bytecode: `0x${string}` };
