export interface DevnetAddresses {
  seaportAddress: `0x${string}`;
  conduitControllerAddress: `0x${string}`;
  dropFactoryAddress: `0x${string}`;
  dropImplementationAddress: `0x${string}`;
  deployerAddress: `0x${string}`;
}
export declare const DEVNET_DEPLOYER_PRIVATE_KEY: `0x${string}`;
/** Deploys ConduitController, Seaport, DropERC721 and DropFactory from a fixed devnet key; idempotent. */
export declare function deployDevnet(rpcUrl: string): Promise<DevnetAddresses>;
/** The Worker's CHAINS for a local devnet: chain 1868 at `rpcUrl` with the devnet's contracts, no confirmations. */
export declare function devnetChains(
  rpcUrl: string,
  contracts: Pick<DevnetAddresses, "seaportAddress" | "dropFactoryAddress">,
): Record<1868, { name: string; rpcUrl: string; seaportAddress: string; dropFactoryAddress: string; confirmations: number; nativeSymbol: string }>;
