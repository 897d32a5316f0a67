import type { LoadedArtifact } from "./artifacts.mjs";
export declare function runtimeMatches(code: `0x${string}` | undefined, artifact: Pick<LoadedArtifact, "deployedBytecode" | "immutableRanges">): boolean;
