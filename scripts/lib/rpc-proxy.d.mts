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
  stats: {
    calls: number;
    failed: number;
    lost: number;
    delayed: number;
    byMethod: Record<string, number>;
    failedByMethod: Record<string, number>;
    lostByMethod: Record<string, number>;
    delayedByMethod: Record<string, number>;
  };
  stop(): Promise<void>;
}
export interface ProxiedCall {
  payload: unknown;
  fault: FaultRule["action"] | null;
  status: number;
  text: string;
  startedAt: number;
  endedAt: number;
}
export declare function startRpcProxy(options: { target: string; port?: number; onCall?: (call: ProxiedCall) => void }): Promise<RpcProxy>;
