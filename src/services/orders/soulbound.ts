// Badge drops are soulbound: their contract reverts every transfer, so Seaport could never fill
// a listing of their tokens, whoever built it. Listing one is refused up front.
import { eq } from "drizzle-orm";
import { drops } from "../../db/schema";
import type { ServiceContext } from "../context";

export const SOULBOUND_REFUSAL = "the collection is a badge drop: its tokens are soulbound (every transfer reverts), so Seaport could never fill a listing of them";

export async function isBadgeDrop(ctx: ServiceContext, dropId: string | null): Promise<boolean> {
  if (!dropId) return false;
  const drop = await ctx.db.select({ mode: drops.mode }).from(drops).where(eq(drops.id, dropId)).get();
  return drop?.mode === "badge";
}
