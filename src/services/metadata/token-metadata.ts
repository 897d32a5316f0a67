// The tokenURI target of `s3` and `metadata-api` drops (DESIGN §4 "Metadata storage").
import { and, eq, inArray, sql } from "drizzle-orm";
import { assets, drops, tokenMetadata, transactions } from "../../db/schema";
import { dropTotalMinted, erc721OwnerOf } from "../../chain/nft-reads";
import { getChain, type ChainConfig } from "../../lib/chains";
import { AppError } from "../../lib/errors";
import { IsolateCache } from "../../lib/isolate-cache";
import type { TokenMetadata } from "../../schemas/resources";
import { sha256Hex } from "../auth/keys";
import type { ServiceContext } from "../context";

/** OpenSea metadata standard: what the route serves and what `s3` drops keep in R2. */
export interface OpenSeaMetadata {
  name: string;
  description?: string;
  image?: string;
  animation_url?: string;
  external_url?: string;
  attributes?: Record<string, unknown>[];
  properties?: Record<string, unknown>;
}

export interface RenderedMetadata {
  document: OpenSeaMetadata;
  /** Strong ETag (quoted SHA-256 hex) of JSON.stringify(document), the exact response body. */
  etag: string;
  /**
   * The drop's default document, served while a claim or mint of the drop by the service awaits
   * its receipt, which may still write this token's own document (decision 93): not to be cached.
   */
  provisional: boolean;
}

/** A stored document, and whether it is the drop's default rather than the token's own. */
type StoredDocument = { document: OpenSeaMetadata; isDefault: boolean };

type TokenMetadataRow = typeof tokenMetadata.$inferSelect;

export const DEFAULT_TOKEN_KEY = "default";

/** R2 key of one token's document, or of the drop's default document. */
export const metadataObjectKey = (dropId: string, tokenId: string) => `drops/${dropId}/${tokenId}.json`;

export function toOpenSeaMetadata(metadata: TokenMetadata): OpenSeaMetadata {
  const document: OpenSeaMetadata = { name: metadata.name };
  if (metadata.description !== undefined) document.description = metadata.description;
  if (metadata.image !== undefined) document.image = metadata.image;
  if (metadata.animationUrl !== undefined) document.animation_url = metadata.animationUrl;
  if (metadata.externalUrl !== undefined) document.external_url = metadata.externalUrl;
  if (metadata.attributes !== undefined) document.attributes = metadata.attributes;
  if (metadata.properties !== undefined) document.properties = metadata.properties;
  return document;
}

function tokenMetadataFromRow(row: TokenMetadataRow): TokenMetadata {
  const metadata: TokenMetadata = { name: row.name };
  if (row.description !== null) metadata.description = row.description;
  if (row.image !== null) metadata.image = row.image;
  if (row.animationUrl !== null) metadata.animationUrl = row.animationUrl;
  if (row.externalUrl !== null) metadata.externalUrl = row.externalUrl;
  if (row.attributes !== null) metadata.attributes = JSON.parse(row.attributes) as TokenMetadata["attributes"];
  if (row.properties !== null) metadata.properties = JSON.parse(row.properties) as TokenMetadata["properties"];
  return metadata;
}

async function fromR2(bucket: R2Bucket, dropId: string, tokenId: string): Promise<StoredDocument | null> {
  const own = await bucket.get(metadataObjectKey(dropId, tokenId));
  if (own) return { document: await own.json<OpenSeaMetadata>(), isDefault: false };
  const fallback = await bucket.get(metadataObjectKey(dropId, DEFAULT_TOKEN_KEY));
  return fallback ? { document: await fallback.json<OpenSeaMetadata>(), isDefault: true } : null;
}

async function fromD1({ db }: ServiceContext, chainId: number, contractAddress: string, tokenId: string): Promise<StoredDocument | null> {
  const rows = await db
    .select()
    .from(tokenMetadata)
    .where(
      and(
        eq(tokenMetadata.chainId, chainId),
        eq(tokenMetadata.contractAddress, contractAddress),
        inArray(tokenMetadata.tokenKey, [tokenId, DEFAULT_TOKEN_KEY]),
      ),
    )
    .all();
  const row = rows.find((r) => r.tokenKey === tokenId) ?? rows.find((r) => r.tokenKey === DEFAULT_TOKEN_KEY);
  return row ? { document: toOpenSeaMetadata(tokenMetadataFromRow(row)), isDefault: row.tokenKey === DEFAULT_TOKEN_KEY } : null;
}

interface MetadataDrop {
  totalSupply: number | null;
  /** D1's next id the project wallet's mints produce: every id below it has been minted. */
  nextTokenId: number;
}

/** The contract counts its ids in a uint40: no larger id can exist. */
const MAX_TOKEN_ID = 2n ** 40n - 1n;
// Negative answers, so that a flood of made-up ids costs no chain read per id. The chain's count of
// a drop's minted tokens answers every id above it; ids the chain minted that no longer exist
// were burned, for good (ids are never reused).
const MINTED_COUNT_TTL_MS = 5_000;
const mintedOnChain = new IsolateCache<bigint>(MINTED_COUNT_TTL_MS);
const BURNED_TTL_MS = 60_000;
const burnedTokens = new IsolateCache<true>(BURNED_TTL_MS);

/** The chain's count of the drop's minted tokens, read at most once per MINTED_COUNT_TTL_MS per drop and isolate. */
async function chainMintedCount(chain: ChainConfig, contractAddress: string): Promise<bigint> {
  const key = `${chain.chainId}:${contractAddress}`;
  const cached = mintedOnChain.get(key);
  if (cached !== undefined) return cached;
  const count = await dropTotalMinted(chain.rpcUrl, contractAddress);
  mintedOnChain.set(key, count);
  return count;
}

/** Whether a token the drop has minted still exists (ownerOf), with burned ones remembered. */
async function notBurned(chain: ChainConfig, contractAddress: string, tokenId: string): Promise<boolean> {
  const key = `${chain.chainId}:${contractAddress}:${tokenId}`;
  if (burnedTokens.get(key)) return false;
  const exists = (await erc721OwnerOf(chain.rpcUrl, contractAddress, tokenId)) !== null;
  if (!exists) burnedTokens.set(key, true);
  return exists;
}

/**
 * Whether the token exists with its own metadata in place. D1 knows once the claim's receipt or
 * the indexer applied the mint. Until then the chain says (a public claim: up to a cron period
 * plus the confirmation depth, decision 69), except while a claim or mint of the drop by the
 * service is pending: its per-token metadata is written when its receipt is applied, and the
 * drop's default served meanwhile would be kept by marketplaces. Drops number tokens from 1 up to
 * their supply, so ids outside that cost no chain read; ids above what D1 knows were minted are
 * answered by the chain's count of minted tokens (cached briefly), so only ids it has minted
 * cost an `ownerOf`.
 */
async function minted(chain: ChainConfig, drop: MetadataDrop, contractAddress: string, tokenId: string, hasAssetRow: boolean, mintPending: boolean): Promise<boolean> {
  if (hasAssetRow) return true;
  const id = BigInt(tokenId);
  if (id === 0n || id > MAX_TOKEN_ID || (drop.totalSupply !== null && id > BigInt(drop.totalSupply))) return false;
  if (mintPending) return false;
  if (id >= BigInt(drop.nextTokenId) && id > (await chainMintedCount(chain, contractAddress))) return false;
  return notBurned(chain, contractAddress, tokenId);
}

/**
 * Metadata of a minted token of one of our `s3` or `metadata-api` drops. Unminted tokens are
 * 404 on purpose (burned ones too: their asset row is gone and ownerOf reverts): answering for
 * them would reveal (blind-box) metadata before the mint.
 */
export async function renderTokenMetadata(
  ctx: ServiceContext,
  chainId: number,
  contractAddress: string,
  tokenId: string,
): Promise<RenderedMetadata> {
  const chain = getChain(ctx.env, chainId);
  // Whether a claim or mint of the drop by the service still waits for its receipt is read with
  // the rest, before any document: the receipt writes the token's document before its row leaves
  // `pending`, so "nothing pending" here means the document read below sees it (decision 93).
  const [dropRows, assetRows, pendingMints] = await ctx.db.batch([
    ctx.db
      .select({ id: drops.id, totalSupply: drops.totalSupply, nextTokenId: drops.nextTokenId, storage: drops.metadataStorageType })
      .from(drops)
      .where(and(eq(drops.chainId, chainId), eq(drops.contractAddress, contractAddress))),
    ctx.db
      .select({ id: assets.id })
      .from(assets)
      .where(and(eq(assets.chainId, chainId), eq(assets.contractAddress, contractAddress), eq(assets.tokenId, tokenId))),
    ctx.db
      .select({ id: transactions.id })
      .from(drops)
      .innerJoin(transactions, and(eq(transactions.projectId, drops.projectId), eq(transactions.subjectId, drops.id)))
      // 'pending' as a literal: the partial index transactions_pending_subject_idx is chosen on it.
      .where(and(eq(drops.chainId, chainId), eq(drops.contractAddress, contractAddress), sql`${transactions.status} = 'pending'`, inArray(transactions.kind, ["claim", "mint"])))
      .limit(1),
  ]);
  const mintPending = pendingMints.length > 0;
  const drop = dropRows[0];
  if (!drop) throw new AppError("not_found", "no drop at this contract");
  if (drop.storage === "self-hosted") throw new AppError("not_found", "this drop's metadata is self-hosted: its tokenURI is baseUri + tokenId");
  if (!(await minted(chain, drop, contractAddress, tokenId, Boolean(assetRows[0]), mintPending))) {
    throw new AppError("not_found", "token not minted, or burned (metadata exists only for minted tokens that still exist)");
  }
  const stored = drop.storage === "s3" ? await fromR2(ctx.env.METADATA, drop.id, tokenId) : await fromD1(ctx, chainId, contractAddress, tokenId);
  if (!stored) throw new AppError("not_found", "no metadata stored for this token");
  // The token may be one the indexer applied before a pending claim's receipt wrote its own
  // document (decision 64's fee-bump race): only the default is in question.
  const provisional = stored.isDefault && mintPending;
  return { document: stored.document, etag: `"${await sha256Hex(JSON.stringify(stored.document))}"`, provisional };
}
