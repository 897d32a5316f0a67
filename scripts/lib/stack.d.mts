import type { ChildProcess } from "node:child_process";
import type { AnvilHandle } from "./anvil.mjs";
import type { DevnetAddresses } from "./devnet.mjs";

export declare const ROOT: string;
export type StepPrinter = (label: string) => (detail?: string) => void;

export interface ServiceOptions {
  port?: number;
  persistDir: string;
  secretsFile?: string;
  serviceRpcUrl?: (anvil: AnvilHandle) => Promise<string>;
  vars?: Record<string, string>;
  inspectorPort?: number;
  snapshotDir?: string;
  /** false detaches wrangler dev's DevTools inspector (scripts/lib/wrangler-devtools.mjs). */
  devtools?: boolean;
  step?: StepPrinter;
}

export interface Stack {
  anvil: AnvilHandle;
  contracts: DevnetAddresses;
  baseUrl: string;
  chains: Record<string, unknown>;
  adminToken: string;
  wrangler: ChildProcess;
  logTail(): string;
  stop(): Promise<void>;
}

/** anvil + the devnet contracts + the service on them (scripts/lib/stack.mjs). */
export declare function startStack(options: ServiceOptions & { anvilOptions?: { blockTime?: number; gasLimit?: number }; step?: StepPrinter }): Promise<Stack>;
export declare function stopChildren(): Promise<void>;
export declare function stepPrinter(out?: NodeJS.WritableStream): StepPrinter;
