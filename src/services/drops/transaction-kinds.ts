// The drops' transactions as the engine sees them (engine/kinds.ts): a drop's deployment, and
// the claims and deprecated mints that mint from it.
import { dropErc721Abi } from "../../chain/artifacts/drop-erc721";
import { dropFactoryAbi } from "../../chain/artifacts/drop-factory";
import type { AssetFields } from "../chain-events/apply";
import type { ServiceContext } from "../context";
import { defineTransactionKind, type SettledTransaction, type SqlCondition } from "../engine/kinds";
import { receiptEffects, type MintedTokenWrites } from "../indexer/receipt-effects";
import { ClaimPayloadSchema, metadataFor, mintedAssetFields, writeMintedMetadata, type ClaimPayload } from "./minted-metadata";

/** The drop row follows its deployment: `deployed` once confirmed, `failed` otherwise. */
function deployOutcome(ctx: ServiceContext, settled: SettledTransaction<null>, status: "deployed" | "failed"): D1PreparedStatement[] {
  if (!settled.subjectId) return [];
  return [
    ctx.env.DB.prepare(`update drops set status = ?, updated_at = ? where id = ? and status = 'pending' and ${settled.stillPending.sql}`).bind(
      status,
      settled.settledAt,
      settled.subjectId,
      ...settled.stillPending.params,
    ),
  ];
}

export const deployKind = defineTransactionKind({
  name: "deploy",
  // createDrop runs the drop's initializer, so its reverts can carry the drop's errors too.
  revertAbi: [...dropFactoryAbi, ...dropErc721Abi],
  outcome: {
    confirmed: async (ctx, settled) => [...(await receiptEffects(ctx, settled)), ...deployOutcome(ctx, settled, "deployed")],
    reverted: async (ctx, settled) => deployOutcome(ctx, settled, "failed"),
    failed: async (ctx, settled) => deployOutcome(ctx, settled, "failed"),
  },
});

/**
 * A claim's or mint's new tokens get the request's metadata (D1 rows, R2 objects, the asset rows'
 * fields), and D1's copy of the drop's next id moves past them.
 */
function requestedMetadata(ctx: ServiceContext, settled: SettledTransaction<ClaimPayload>, payload: ClaimPayload): MintedTokenWrites {
  const { chainId, stillPending } = settled;
  return {
    contract: payload.contract,
    write: async (minted) => {
      // The receipt is authoritative: the i-th minted token gets the i-th override.
      const assets = await mintedAssetFields(ctx, payload, minted);
      await writeMintedMetadata(ctx, payload, minted);
      const statements = requestMetadataOverwrites(ctx.env.DB, chainId, payload, minted, assets, stillPending);
      if (minted.length) {
        // D1's copy of the next id only seeds a sequencer that lost its state; the chain decides.
        const next = Math.max(...minted.map(Number)) + 1;
        statements.push(
          ctx.env.DB.prepare(`update drops set next_token_id = max(next_token_id, ?), updated_at = ? where id = ? and ${stillPending.sql}`).bind(
            next,
            Date.now(),
            payload.dropId,
            ...stillPending.params,
          ),
        );
      }
      return { assets, statements };
    },
  };
}

/**
 * The request's own metadata on tokens whose asset rows already exist. The indexer applies a mint
 * first when the row showed another hash of this transaction (a fee bump's, while the original
 * was mined), and gives the tokens the drop's default fields; the log claim then skips the
 * receipt's insert (decision 64). Guarded like the rest of the batch, not by the log claim.
 */
function requestMetadataOverwrites(
  db: D1Database,
  chainId: number,
  payload: ClaimPayload,
  minted: string[],
  fields: AssetFields[],
  stillPending: SqlCondition,
): D1PreparedStatement[] {
  const now = Date.now();
  return minted.flatMap((tokenId, index) => {
    const asset = fields[index]!;
    if (!metadataFor(payload, index)) return [];
    return [
      db
        .prepare(
          `update assets set name = ?, name_lower = ?, description = ?, image_url = ?, animation_url = ?, updated_at = ?
           where chain_id = ? and contract_address = ? and token_id = ? and ${stillPending.sql}`,
        )
        .bind(asset.name, asset.name?.toLowerCase() ?? null, asset.description, asset.imageUrl, asset.animationUrl, now, chainId, payload.contract, tokenId, ...stillPending.params),
    ];
  });
}

/** Claims and mints share their payload and outcome; only the API that sent them differs. */
const mintFromDropKind = (name: "claim" | "mint") =>
  defineTransactionKind<ClaimPayload>({
    name,
    payload: ClaimPayloadSchema,
    revertAbi: dropErc721Abi,
    outcome: {
      confirmed: (ctx, settled) => receiptEffects(ctx, settled, settled.payload ? requestedMetadata(ctx, settled, settled.payload) : undefined),
    },
  });

export const claimKind = mintFromDropKind("claim");
export const mintKind = mintFromDropKind("mint");
