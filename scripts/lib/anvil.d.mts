import type { ChildProcess } from "node:child_process";
export declare const DEVNET_CHAIN_ID: 1868;
export declare const ANVIL_TEST_MNEMONIC: string;
export declare function anvilBinary(): string;
export declare function freePort(): Promise<number>;
export interface AnvilHandle {
  url: string;
  port: number;
  process: ChildProcess;
  rpc(method: string, params?: unknown[]): Promise<unknown>;
  stop(): Promise<void>;
}
export declare function startAnvil(options?: {
  port?: number;
  blockTime?: number;
  gasLimit?: number;
  extraArgs?: string[];
  silent?: boolean;
}): Promise<AnvilHandle>;
