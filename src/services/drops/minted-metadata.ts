// Metadata of freshly minted tokens: the claim's overrides (or the mint's one metadata object)
// for the ids the receipt reports, falling back to the drop's default.
import { z } from "zod";
import { tokenMetadata } from "../../db/schema";
import { IsolateCache } from "../../lib/isolate-cache";
import type { TokenMetadata } from "../../schemas/resources";
import type { AssetFields } from "../chain-events/apply";
import type { ServiceContext } from "../context";
import { metadataObjectKey, toOpenSeaMetadata } from "../metadata/token-metadata";

// Metadata the request's schema (TokenMetadataSchema) validated before it was stored: read back,
// it is only checked to be such an object, not validated a second time.
const StoredTokenMetadata = z.custom<TokenMetadata>(
  (value) => typeof value === "object" && value !== null && typeof (value as { name?: unknown }).name === "string",
  "not stored token metadata",
);

/** A claim's or mint's payload: stored on the transaction row at request time, read back when the receipt arrives. */
export const ClaimPayloadSchema = z.object({
  dropId: z.string(),
  chainId: z.number(),
  /** Lower-case drop address. */
  contract: z.string(),
  metadataStorageType: z.enum(["s3", "metadata-api", "self-hosted"]),
  baseUri: z.string(),
  /** Entry i applies to the i-th minted token (claim's overrideMetadata). */
  overrides: z.array(StoredTokenMetadata).nullable(),
  /** Applies to every minted token (deprecated mint's metadata). */
  forEveryToken: StoredTokenMetadata.nullable(),
});
export type ClaimPayload = z.infer<typeof ClaimPayloadSchema>;

export const metadataFor = (payload: ClaimPayload, index: number): TokenMetadata | null =>
  payload.overrides?.[index] ?? payload.forEveryToken ?? null;

// A drop's default metadata is written with the drop at deploy and never edited, so every
// claim's response and every confirmed mint in this isolate can share one read.
const defaults = new IsolateCache<TokenMetadata | null>(60_000);

export async function defaultMetadataOf(ctx: ServiceContext, payload: ClaimPayload): Promise<TokenMetadata | null> {
  const key = `${payload.chainId}:${payload.contract}`;
  const cached = defaults.get(key);
  if (cached !== undefined) return cached;
  const metadata = await readDefaultMetadata(ctx, payload);
  defaults.set(key, metadata);
  return metadata;
}

async function readDefaultMetadata(ctx: ServiceContext, payload: ClaimPayload): Promise<TokenMetadata | null> {
  const row = await ctx.env.DB.prepare(
    "select name, description, image, animation_url, external_url from token_metadata where chain_id = ? and contract_address = ? and token_key = 'default'",
  )
    .bind(payload.chainId, payload.contract)
    .first<{ name: string; description: string | null; image: string | null; animation_url: string | null; external_url: string | null }>();
  if (!row) return null;
  return {
    name: row.name,
    ...(row.description ? { description: row.description } : {}),
    ...(row.image ? { image: row.image } : {}),
    ...(row.animation_url ? { animationUrl: row.animation_url } : {}),
    ...(row.external_url ? { externalUrl: row.external_url } : {}),
  };
}

export function assetFieldsFrom(metadata: TokenMetadata | null, tokenUri: string | null): AssetFields {
  return {
    name: metadata?.name ?? null,
    description: metadata?.description ?? null,
    imageUrl: metadata?.image ?? null,
    animationUrl: metadata?.animationUrl ?? null,
    tokenUri,
  };
}

export async function mintedAssetFields(ctx: ServiceContext, payload: ClaimPayload, tokenIds: string[]): Promise<AssetFields[]> {
  const needsFallback = tokenIds.some((_, index) => !metadataFor(payload, index));
  const fallback = needsFallback ? await defaultMetadataOf(ctx, payload) : null;
  return tokenIds.map((tokenId, index) => assetFieldsFrom(metadataFor(payload, index) ?? fallback, `${payload.baseUri}${tokenId}`));
}

/** Per-token metadata for the minted ids: D1 rows (metadata-api and s3), R2 objects (s3). Idempotent. */
export async function writeMintedMetadata(ctx: ServiceContext, payload: ClaimPayload, tokenIds: string[]): Promise<void> {
  const specific = tokenIds.map((tokenId, index) => ({ tokenId, metadata: metadataFor(payload, index) })).filter((entry) => entry.metadata);
  if (!specific.length || payload.metadataStorageType === "self-hosted") return;
  const now = new Date();
  const [first, ...rest] = specific.map(({ tokenId, metadata }) => {
    const row = tokenMetadataRow(payload.chainId, payload.contract, tokenId, metadata!, now);
    const { createdAt: _keepOriginal, ...changes } = row;
    return ctx.db
      .insert(tokenMetadata)
      .values(row)
      .onConflictDoUpdate({ target: [tokenMetadata.chainId, tokenMetadata.contractAddress, tokenMetadata.tokenKey], set: changes });
  });
  await ctx.db.batch([first!, ...rest]);
  if (payload.metadataStorageType === "s3") {
    await Promise.all(
      specific.map(({ tokenId, metadata }) =>
        ctx.env.METADATA.put(metadataObjectKey(payload.dropId, tokenId), JSON.stringify(toOpenSeaMetadata(metadata!)), {
          httpMetadata: { contentType: "application/json" },
        }),
      ),
    );
  }
}

export function tokenMetadataRow(chainId: number, contract: string, tokenKey: string, metadata: TokenMetadata, now: Date) {
  return {
    chainId,
    contractAddress: contract,
    tokenKey,
    name: metadata.name,
    description: metadata.description ?? null,
    image: metadata.image ?? null,
    animationUrl: metadata.animationUrl ?? null,
    externalUrl: metadata.externalUrl ?? null,
    attributes: metadata.attributes ? JSON.stringify(metadata.attributes) : null,
    properties: metadata.properties ? JSON.stringify(metadata.properties) : null,
    createdAt: now,
    updatedAt: now,
  };
}
