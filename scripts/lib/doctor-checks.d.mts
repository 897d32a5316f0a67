import type { DoctorRow } from "./doctor.mjs";
export declare const ADMIN_TOKEN_MIN_LENGTH: number;
export declare function checkPublicUrl(value: string | undefined, options: { local: boolean }): DoctorRow;
export declare function checkSecrets(
  secrets: { ADMIN_TOKEN?: string; WALLET_MNEMONIC?: string },
  lookedIn: string,
  putCommand: (name: string) => string,
): DoctorRow[];
export declare function checkChain(
  id: string,
  chain: { name: string; rpcUrl: string; seaportAddress: string; dropFactoryAddress: string },
): Promise<DoctorRow[]>;
