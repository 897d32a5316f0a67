export declare function rpcLabel(rpcUrl: string): string;
