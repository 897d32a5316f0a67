// POST /v1/project-wallet/drops/claim and the deprecated /mint: the project wallet mints to a
// recipient as the drop's minter. Token ids are reserved by the wallet's sequencer in nonce
// order, so the ids in the response are the ones the chain will assign.
import { eq } from "drizzle-orm";
import { checksumAddress } from "../../chain/address";
import { encodeMintTo, mintGasLimitWithoutEstimate } from "../../chain/drop-contract";
import { collections } from "../../db/schema";
import { getChain } from "../../lib/chains";
import { IsolateCache } from "../../lib/isolate-cache";
import { AppError, notFound } from "../../lib/errors";
import type { ClaimedAsset, Collection, TokenMetadata } from "../../schemas/resources";
import type { ServiceContext } from "../context";
import { getProjectRow } from "../projects";
import { assertOwnProject, sendFromProjectWallet } from "../project-wallet/send";
import type { TransactionView } from "../engine/transaction-view";
import { collectionView } from "../views";
import { claimableDrop } from "./claimable-drop";
import { assetFieldsFrom, defaultMetadataOf, metadataFor, type ClaimPayload } from "./minted-metadata";
import { claimKind, mintKind } from "./transaction-kinds";

interface DropDisplay {
  collection: Collection | null;
  defaultMetadata: TokenMetadata | null;
}

// What a claim response shows besides the token ids changes rarely: the drop's collection is
// kept a short while per isolate here, its default metadata by defaultMetadataOf().
const collectionsByDrop = new IsolateCache<Collection | null>(30_000);

async function dropCollection(ctx: ServiceContext, dropId: string): Promise<Collection | null> {
  const cached = collectionsByDrop.get(dropId);
  if (cached !== undefined) return cached;
  const row = await ctx.db.select().from(collections).where(eq(collections.dropId, dropId)).get();
  const collection = row ? collectionView(row) : null;
  collectionsByDrop.set(dropId, collection);
  return collection;
}

async function dropDisplay(ctx: ServiceContext, dropId: string, payload: ClaimPayload): Promise<DropDisplay> {
  const [collection, defaultMetadata] = await Promise.all([dropCollection(ctx, dropId), defaultMetadataOf(ctx, payload)]);
  return { collection, defaultMetadata };
}

export interface MintInput {
  projectId?: string;
  chainId: number;
  contractAddress: string;
  recipientAddress: string;
  quantity: number;
  overrideMetadata?: TokenMetadata[];
  /** The deprecated mint's metadata: applies to every minted token. */
  metadataForEveryToken?: TokenMetadata;
}

export async function mintFromDrop(
  ctx: ServiceContext,
  keyProjectId: string,
  input: MintInput,
  kind: "claim" | "mint",
): Promise<{ assets: ClaimedAsset[]; transaction: TransactionView }> {
  assertOwnProject(input.projectId, keyProjectId);
  const chain = getChain(ctx.env, input.chainId);
  if (/^0x0{40}$/.test(input.recipientAddress)) {
    throw new AppError("validation_error", "body.recipientAddress: cannot be the zero address", [
      { path: "body.recipientAddress", message: "cannot be the zero address" },
    ]);
  }
  const drop = await claimableDrop(ctx, chain.chainId, input.contractAddress, keyProjectId);
  if (!drop) throw notFound("drop");
  if (drop.status === "failed") throw new AppError("conflict", "this drop's deployment failed; it cannot be minted");
  const project = await getProjectRow(ctx, keyProjectId);

  const payload: ClaimPayload = {
    dropId: drop.id,
    chainId: chain.chainId,
    contract: drop.contractAddress,
    metadataStorageType: drop.metadataStorageType,
    baseUri: drop.baseUri,
    overrides: input.overrideMetadata ?? null,
    forEveryToken: input.metadataForEveryToken ?? null,
  };
  // Read before the send: once the transaction is out, a failed read must not turn into an error.
  const display = await dropDisplay(ctx, drop.id, payload);
  const { transaction, firstTokenId } = await sendFromProjectWallet(ctx, project, {
    chainId: chain.chainId,
    kind,
    subjectId: drop.id,
    to: drop.contractAddress,
    data: encodeMintTo(input.recipientAddress, input.quantity),
    value: "0",
    metadata: null,
    payload: (kind === "claim" ? claimKind : mintKind).payloadJson(payload),
    // Right after a deploy the drop has no code yet, so the mint cannot be simulated.
    ...(drop.status === "pending" ? { gasLimit: mintGasLimitWithoutEstimate(input.quantity).toString() } : {}),
    reservation: { contract: drop.contractAddress, quantity: input.quantity, totalSupply: drop.totalSupply, initialNextTokenId: drop.nextTokenId },
  });
  const first = firstTokenId!;
  const tokenIds = Array.from({ length: input.quantity }, (_, i) => String(first + i));
  const assets = tokenIds.map(
    (tokenId, index): ClaimedAsset => ({
      chainId: chain.chainId,
      contractAddress: checksumAddress(drop.contractAddress),
      tokenId,
      schema: "ERC721",
      ...assetFieldsFrom(metadataFor(payload, index) ?? display.defaultMetadata, `${drop.baseUri}${tokenId}`),
      bestListing: null,
      collection: display.collection,
    }),
  );
  return { assets, transaction };
}
