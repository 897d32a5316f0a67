// Row → response shape. Addresses leave checksummed, times as ISO 8601.
import { checksumAddress } from "../chain/address";
import type { collections, drops, orders } from "../db/schema";
import type { Collection, DropView, Listing } from "../schemas/resources";

type CollectionRow = typeof collections.$inferSelect;
type DropRow = typeof drops.$inferSelect;
type OrderRow = typeof orders.$inferSelect;

export const iso = (date: Date) => date.toISOString();

export function collectionView(
  row: Pick<CollectionRow, "id" | "slug" | "chainId" | "contractAddress" | "name" | "imageUrl" | "description" | "isVerified">,
): Collection {
  return {
    id: row.id,
    slug: row.slug,
    chainId: row.chainId,
    contractAddress: checksumAddress(row.contractAddress),
    name: row.name,
    imageUrl: row.imageUrl,
    description: row.description,
    isVerified: row.isVerified,
  };
}

export function listingView(row: Pick<OrderRow, "unitPrice" | "priceSymbol" | "quantity" | "offerer" | "orderHash">): Listing {
  return {
    unitPrice: row.unitPrice,
    priceSymbol: row.priceSymbol,
    quantity: row.quantity,
    offerer: checksumAddress(row.offerer),
    orderHash: row.orderHash,
  };
}

/** `blindboxKey` is the owning project's secret: null for every other reader. */
export function dropView(row: DropRow, readerProjectId: string | undefined): DropView {
  return {
    id: row.id,
    chainId: row.chainId,
    contractAddress: checksumAddress(row.contractAddress),
    name: row.name,
    symbol: row.symbol,
    description: row.description,
    ownerAddress: checksumAddress(row.ownerAddress),
    blindboxKey: readerProjectId === row.projectId ? row.blindboxKey : null,
    imageUrl: row.imageUrl,
    baseUri: row.baseUri,
    creatorFeeAddress: checksumAddress(row.creatorFeeAddress),
    creatorFeeBps: row.creatorFeeBps,
    projectId: row.projectId,
    metadataRepoId: row.metadataRepoId,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
  };
}
