import { eq, sql } from "drizzle-orm";
import { checksumAddress } from "../../chain/address";
import type { Db } from "../../db/client";
import { assets, collections, orders } from "../../db/schema";
import type { Asset } from "../../schemas/resources";
import { liveOrder, TOKEN_ORDERS_INDEX } from "../orders/best-listing";
import { collectionView, listingView } from "../views";

/**
 * Assets with their collection and best listing in one query. `best_order_hash` is kept by every
 * status change, but expiry is time: until the cron's sweep records it, a best listing past its
 * end time is replaced at read time by the token's next cheapest active, unexpired one (the same
 * rule and named index as services/orders/best-listing.ts), so a dead order is never shown and a live
 * one never hidden. Unlisted assets skip both lookups.
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
    .leftJoin(orders, eq(orders.orderHash, liveBestOrderHash(Date.now())))
    .$dynamic();
}

function liveBestOrderHash(nowMs: number) {
  return sql`(case
    when ${assets.bestOrderHash} is null then null
    when exists (select 1 from orders b where b.order_hash = ${assets.bestOrderHash} and ${liveOrder("b", nowMs)})
      then ${assets.bestOrderHash}
    else (select n.order_hash from orders n indexed by ${sql.raw(TOKEN_ORDERS_INDEX)}
          where n.chain_id = ${assets.chainId} and n.contract_address = ${assets.contractAddress} and n.token_id = ${assets.tokenId}
            and ${liveOrder("n", nowMs)}
          order by n.price_sort asc, n.created_at asc limit 1)
  end)`;
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
