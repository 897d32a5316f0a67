import { and, eq, gt, sql } from "drizzle-orm";
import { checksumAddress } from "../../chain/address";
import type { Db } from "../../db/client";
import { assets, collections, orders } from "../../db/schema";
import type { Asset } from "../../schemas/resources";
import { collectionView, listingView } from "../views";

/**
 * Assets with their collection and best listing in one query. The listing is joined only while
 * it is still active and unexpired, so a stale `best_order_hash` never shows a dead order.
 */
// Only the columns the views use: an order row also carries its full Seaport parameters and
// signature (~1 KB), which D1 would otherwise serialise for every listed asset on a page.
const collectionColumns = {
  id: collections.id,
  slug: collections.slug,
  chainId: collections.chainId,
  contractAddress: collections.contractAddress,
  name: collections.name,
  imageUrl: collections.imageUrl,
  description: collections.description,
  isVerified: collections.isVerified,
};
const listingColumns = {
  orderHash: orders.orderHash,
  unitPrice: orders.unitPrice,
  priceSymbol: orders.priceSymbol,
  quantity: orders.quantity,
  offerer: orders.offerer,
};

export function selectAssetsWithRelations(db: Db) {
  return db
    .select({ asset: assets, collection: collectionColumns, listing: listingColumns })
    .from(assets)
    .leftJoin(collections, eq(collections.id, assets.collectionId))
    .leftJoin(
      orders,
      and(eq(orders.orderHash, assets.bestOrderHash), eq(orders.status, "active"), gt(orders.endTime, sql`${Date.now()}`)),
    )
    .$dynamic();
}

type Joined = {
  asset: typeof assets.$inferSelect;
  collection: Parameters<typeof collectionView>[0] | null;
  listing: Parameters<typeof listingView>[0] | null;
};

export function assetView({ asset, collection, listing }: Joined): Asset {
  return {
    id: asset.id,
    chainId: asset.chainId,
    contractAddress: checksumAddress(asset.contractAddress),
    tokenId: asset.tokenId,
    schema: asset.schema,
    name: asset.name,
    description: asset.description,
    imageUrl: asset.imageUrl,
    animationUrl: asset.animationUrl,
    tokenUri: asset.tokenUri,
    bestListing: listing ? listingView(listing) : null,
    collection: collection ? collectionView(collection) : null,
  };
}
