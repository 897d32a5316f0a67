import type { Abi } from "viem";
export declare const ROOT: string;
export declare const SETTINGS: { optimizer: { enabled: boolean; runs: number }; evmVersion: string; outputSelection: unknown };
export declare const ARTIFACTS: { contract: string; unit: string; file: string; id: string }[];
export interface CompiledContract {
  abi: Abi;
  bytecode: `0x${string}`;
  deployedBytecode: `0x${string}`;
  /** Byte ranges of deployedBytecode that the constructor fills (immutables), sorted by start. */
  immutableRanges: { start: number; length: number }[];
}
export declare function compileUnit(unitName: "mintyard" | "seaport"): Record<string, CompiledContract>;
export declare function compileAll(units?: ("mintyard" | "seaport")[]): Record<string, CompiledContract>;
/** Compiles everything; returns { [repoRelativePath]: content } for every generated artifact. */
export declare function buildArtifactFiles(): Record<string, string>;
