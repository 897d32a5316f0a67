// The drop a claim or mint draws on. Nothing edits a drop after its deploy: the watcher only
// moves `status` on from `pending` and raises `next_token_id`, which seeds a WalletSequencer the
// first time it sees the contract and is never read again. So a deployed drop's row is kept per
// isolate, and a claim on a warm isolate sends no D1 read for it; pending drops are read afresh.
import { and, eq } from "drizzle-orm";
import { drops } from "../../db/schema";
import { IsolateCache } from "../../lib/isolate-cache";
import type { ServiceContext } from "../context";

type DropRow = typeof drops.$inferSelect;

const deployedDrops = new IsolateCache<DropRow>(60_000);

/** The project's drop at `contractAddress` on `chainId`, or undefined (missing, or another project's). */
export async function claimableDrop(ctx: ServiceContext, chainId: number, contractAddress: string, projectId: string): Promise<DropRow | undefined> {
  const key = `${chainId}:${contractAddress}:${projectId}`;
  const cached = deployedDrops.get(key);
  if (cached) return cached;
  const row = await ctx.db
    .select()
    .from(drops)
    .where(and(eq(drops.chainId, chainId), eq(drops.contractAddress, contractAddress), eq(drops.projectId, projectId)))
    .get();
  if (row?.status === "deployed") deployedDrops.set(key, row);
  return row;
}
