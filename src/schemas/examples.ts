// Example values for the OpenAPI document (media-type examples of request bodies and success
// responses). One consistent story: project "Acme" deploys the "Genesis Pass" drop and claims
// two tokens. The workers suite parses every example with its route's zod schema.
import type { z } from "@hono/zod-openapi";
import type { AssetSchema, ClaimedAssetSchema, CollectionSchema, DropSchema, ListingSchema, TransactionSchema } from "./resources";

export const EXAMPLE = {
  projectId: "0b7c3f9e-3c1d-4a8e-9a53-2f1f6b3c8d11",
  walletAddress: "0x1CBd3b2770909D4e10f157cABC84C7264073C9Ec",
  dropId: "5d0c2e7a-8a51-4f3e-b1a4-0f5e3c9a7b21",
  dropAddress: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
  factoryAddress: "0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512",
  seaportAddress: "0x0000000000000068F116a894984e2DB1123eB395",
  recipient: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
  offerer: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
  collectionId: "8e3f6a1b-2c4d-4e5f-9a7b-1c2d3e4f5a6b",
  assetId: "a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d",
  jobId: "2f9d8c7b-6a5e-4d3c-8b2a-19f8e7d6c5b4",
  transactionId: "c3d2e1f0-9a8b-4c7d-8e6f-5a4b3c2d1e0f",
  claimTransactionId: "d4e3f2a1-0b9c-4d8e-9f7a-6b5c4d3e2f10",
  orderHash: "0x2a7d7e0b5b1e8f0c0f7e4c4f1b9b7c8d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b",
  createdAt: "2026-11-21T12:00:00.000Z",
  updatedAt: "2026-11-21T12:00:04.000Z",
} as const;

const baseUri = `https://mintyard.example.net/v1/metadata/1868/${EXAMPLE.dropAddress}/`;

export const exampleCollection: z.input<typeof CollectionSchema> = {
  id: EXAMPLE.collectionId,
  slug: `soneium:${EXAMPLE.dropAddress.toLowerCase()}`,
  chainId: 1868,
  contractAddress: EXAMPLE.dropAddress,
  name: "Genesis Pass",
  imageUrl: "https://assets.mintyard.example.net/genesis/pass.png",
  description: "Access pass for the Genesis season",
  isVerified: false,
};

export const exampleListing: z.input<typeof ListingSchema> = {
  unitPrice: "10000000000000000",
  priceSymbol: "ETH",
  quantity: "1",
  offerer: EXAMPLE.recipient,
  orderHash: EXAMPLE.orderHash,
};

export const exampleClaimedAsset: z.input<typeof ClaimedAssetSchema> = {
  chainId: 1868,
  contractAddress: EXAMPLE.dropAddress,
  tokenId: "1",
  schema: "ERC721",
  name: "Pass #1",
  description: "Access pass for the Genesis season",
  imageUrl: "https://assets.mintyard.example.net/genesis/1.png",
  animationUrl: null,
  tokenUri: `${baseUri}1`,
  bestListing: null,
  collection: exampleCollection,
};

export const exampleAsset: z.input<typeof AssetSchema> = {
  id: EXAMPLE.assetId,
  ...exampleClaimedAsset,
  bestListing: exampleListing,
};

export const examplePendingTransaction: z.input<typeof TransactionSchema> = {
  id: EXAMPLE.transactionId,
  jobId: EXAMPLE.jobId,
  status: "pending",
  projectId: EXAMPLE.projectId,
  transactionHash: "0x9c1f5e4d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a09f8e7d6c5b4a39281",
  chainId: 1868,
  from: EXAMPLE.walletAddress,
  to: EXAMPLE.factoryAddress,
  value: "0",
  data: "0x4f0b5b1e",
  gasUsed: null,
  gasPrice: null,
  totalGasFee: null,
  metadata: null,
  errorMessage: null,
  createdAt: EXAMPLE.createdAt,
  updatedAt: EXAMPLE.createdAt,
};

export const exampleConfirmedTransaction: z.input<typeof TransactionSchema> = {
  ...examplePendingTransaction,
  status: "confirmed",
  gasUsed: "301245",
  gasPrice: "1000252",
  totalGasFee: "301320913740",
  updatedAt: EXAMPLE.updatedAt,
};

export const exampleClaimTransaction: z.input<typeof TransactionSchema> = {
  ...examplePendingTransaction,
  id: EXAMPLE.claimTransactionId,
  jobId: "7a6b5c4d-3e2f-4a1b-9c8d-7e6f5a4b3c2d",
  to: EXAMPLE.dropAddress,
  transactionHash: "0x1b2c3d4e5f60718293a4b5c6d7e8f9010203040506070809a0b0c0d0e0f10111",
  data: "0x449a52f8",
};

export const exampleDrop: z.input<typeof DropSchema> = {
  id: EXAMPLE.dropId,
  chainId: 1868,
  contractAddress: EXAMPLE.dropAddress,
  name: "Genesis Pass",
  symbol: "GP",
  description: "Access pass for the Genesis season",
  ownerAddress: EXAMPLE.walletAddress,
  blindboxKey: "0x6f1c0b8e2d4a5f7e9c3b1a0d8e6f4c2b7a9d5e3f1c0b8a6d4e2f7c9b5a3d1e0f",
  imageUrl: "https://assets.mintyard.example.net/genesis/pass.png",
  baseUri,
  creatorFeeAddress: EXAMPLE.walletAddress,
  creatorFeeBps: 500,
  projectId: EXAMPLE.projectId,
  metadataRepoId: EXAMPLE.dropId,
  createdAt: EXAMPLE.createdAt,
  updatedAt: EXAMPLE.createdAt,
};

export const exampleTokenMetadata = {
  name: "Pass #1",
  description: "Access pass for the Genesis season",
  image: "https://assets.mintyard.example.net/genesis/1.png",
  attributes: [{ trait_type: "tier", value: "gold" }],
};
