import { checksumAddress } from "../../chain/address";
import { eq } from "drizzle-orm";
import { dropAllowlists, type drops } from "../../db/schema";
import { AppError } from "../../lib/errors";
import type { ServiceContext } from "../context";
import { getOwnDropRow } from "./read-drops";
import { findAllowlistEntry, type AllowlistProof } from "./whitelist";

/**
 * A D1 row holds at most 1 MB, and a tree dump takes ~220-300 bytes per entry, so only lists of
 * a few thousand entries fit in `drop_allowlists.tree`; larger trees go to R2.
 */
export const MAX_INLINE_ALLOWLIST_TREE_BYTES = 900_000;

export const allowlistObjectKey = (dropId: string) => `drops/${dropId}/allowlist.json`;

/** Puts a large tree in R2; returns the tree when it belongs in `drop_allowlists` instead (null: it is in R2). */
export async function storeAllowlistTree({ env }: ServiceContext, dropId: string, tree: string): Promise<string | null> {
  if (tree.length <= MAX_INLINE_ALLOWLIST_TREE_BYTES) return tree;
  await env.METADATA.put(allowlistObjectKey(dropId), tree, { httpMetadata: { contentType: "application/json" } });
  return null;
}

async function loadAllowlistTree({ env, db }: ServiceContext, drop: typeof drops.$inferSelect): Promise<string | null> {
  if (!drop.merkleRoot) return null;
  const inline = await db.select({ tree: dropAllowlists.tree }).from(dropAllowlists).where(eq(dropAllowlists.dropId, drop.id)).get();
  if (inline) return inline.tree;
  const object = await env.METADATA.get(allowlistObjectKey(drop.id));
  return object ? await object.text() : null;
}

/** What a public claimer passes to `claim(to, quantity, proof, maxClaimable, price)`. */
export async function getAllowlistEntry(
  ctx: ServiceContext,
  projectId: string,
  dropId: string,
  address: string,
): Promise<AllowlistProof> {
  const tree = await loadAllowlistTree(ctx, await getOwnDropRow(ctx, projectId, dropId));
  if (!tree) throw new AppError("not_found", "this drop has no allowlist");
  const entry = findAllowlistEntry(tree, address);
  if (!entry) throw new AppError("not_found", "address is not on this drop's allowlist");
  return { ...entry, address: checksumAddress(entry.address) };
}
