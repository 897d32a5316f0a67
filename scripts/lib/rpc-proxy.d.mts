export interface FaultRule {
  method: string;
  action: "fail" | "lose-response" | "delay";
  times?: number;
  probability?: number;
  delayMs?: number;
  maxDelayMs?: number;
}
export interface RpcProxy {
  url: string;
  setRules(rules: FaultRule[]): void;
  stats: { calls: number; failed: number; lost: number; delayed: number; byMethod: Record<string, number> };
  stop(): Promise<void>;
}
export declare function startRpcProxy(options: { target: string; port?: number }): Promise<RpcProxy>;
