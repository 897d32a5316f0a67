import type { Abi } from "viem";
export interface LoadedArtifact {
  abi: Abi;
  /** Creation code (initcode without constructor arguments). */
  bytecode: `0x${string}`;
  /** Runtime code with its immutables left zero. */
  deployedBytecode: `0x${string}`;
  /** Byte ranges of deployedBytecode that the constructor fills. */
  immutableRanges: { start: number; length: number }[];
}
export declare function loadArtifact(file: string): LoadedArtifact;
