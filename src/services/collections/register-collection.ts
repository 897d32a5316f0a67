// POST /v1/admin/collections: track an ERC-721/ERC-1155 contract deployed elsewhere. The
// indexer picks it up on its next run: from `fromBlock` (or the chain cursor at registration)
// it reads the contract's logs on their own until they reach the chain cursor, then with the
// other collections (services/indexer/backfill.ts).
import { and, eq, or } from "drizzle-orm";
import { detectNftSchema, hasContractCode } from "../../chain/collection-probe";
import { collections } from "../../db/schema";
import { getChain } from "../../lib/chains";
import { AppError, validationError } from "../../lib/errors";
import type { Collection } from "../../schemas/resources";
import type { ServiceContext } from "../context";
import { chainCursor } from "../indexer/index-chain";
import { collectionView } from "../views";

export interface RegisterCollectionInput {
  chainId: number;
  /** Lower-case. */
  contractAddress: string;
  slug: string;
  schema?: "ERC721" | "ERC1155";
  name?: string;
  description?: string;
  imageUrl?: string;
  isVerified: boolean;
  fromBlock?: number;
}

export async function registerCollection(ctx: ServiceContext, input: RegisterCollectionInput): Promise<Collection> {
  const chain = getChain(ctx.env, input.chainId);
  await assertNew(ctx, input);
  // A read no node answered throws ChainUnavailableError: the error handler's 502.
  if (!(await hasContractCode(chain.rpcUrl, input.contractAddress))) {
    throw validationError("body.contractAddress", `no contract code at this address on chain ${chain.chainId}`);
  }
  const schema = input.schema ?? (await detectNftSchema(chain.rpcUrl, input.contractAddress));
  const { cursor } = await chainCursor(ctx.env.DB, chain);
  if (!schema) {
    throw validationError("body.schema", "the contract declares neither ERC-721 nor ERC-1155 through ERC-165; pass schema explicitly");
  }

  const now = new Date();
  const inserted = await ctx.db
    .insert(collections)
    .values({
      id: crypto.randomUUID(),
      slug: input.slug,
      chainId: chain.chainId,
      contractAddress: input.contractAddress,
      schema,
      name: input.name ?? null,
      description: input.description ?? null,
      imageUrl: input.imageUrl ?? null,
      isVerified: input.isVerified,
      dropId: null,
      tracked: true,
      backfillNextBlock: input.fromBlock ?? cursor + 1,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (!inserted[0]) {
    await assertNew(ctx, input); // a concurrent registration won: say which field collided
    throw new AppError("conflict", "the collection was registered concurrently");
  }
  return collectionView(inserted[0]);
}

async function assertNew(ctx: ServiceContext, input: RegisterCollectionInput): Promise<void> {
  const existing = await ctx.db
    .select({ slug: collections.slug, chainId: collections.chainId, contractAddress: collections.contractAddress })
    .from(collections)
    .where(
      or(eq(collections.slug, input.slug), and(eq(collections.chainId, input.chainId), eq(collections.contractAddress, input.contractAddress))),
    )
    .all();
  if (existing.some((row) => row.slug === input.slug)) {
    throw new AppError("conflict", `slug ${input.slug} is taken`, [{ path: "body.slug", message: "already used by another collection" }]);
  }
  if (existing.length) {
    throw new AppError("conflict", `contract ${input.contractAddress} on chain ${input.chainId} is already a collection`, [
      { path: "body.contractAddress", message: "already known" },
    ]);
  }
}
