export interface FaultRule {
  method: string;
  action: "fail" | "lose-response" | "delay" | "answer-error" | "answer-null";
  times?: number;
  probability?: number;
  delayMs?: number;
  maxDelayMs?: number;
  /** The JSON-RPC error an `answer-error` rule answers with (default -32000 "upstream error"). */
  error?: { code: number; message: string };
  /** The rule applies only once a call of this method was answered since the rules were set. */
  afterMethod?: string;
}
export interface RpcProxy {
  url: string;
  setRules(rules: FaultRule[]): void;
  stats: {
    calls: number;
    failed: number;
    lost: number;
    delayed: number;
    erred: number;
    nulled: number;
    byMethod: Record<string, number>;
    failedByMethod: Record<string, number>;
    lostByMethod: Record<string, number>;
    delayedByMethod: Record<string, number>;
    erredByMethod: Record<string, number>;
    nulledByMethod: Record<string, number>;
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
