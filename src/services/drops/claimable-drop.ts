// The drop a claim or mint draws on. Nothing edits a drop after its deploy: the watcher only
// moves `status` on from `pending` and raises `next_token_id`, which seeds a WalletSequencer the
// first time it sees the contract and is never read again. So a deployed drop's row is kept per
// isolate, and a claim on a warm isolate sends no D1 read for it; pending drops are read afresh.
import { and, eq } from "drizzle-orm";
import { drops } from "../../db/schema";
import type { ServiceContext } from "../context";

type DropRow = typeof drops.$inferSelect;

const DEPLOYED_TTL_MS = 60_000;
const MAX_CACHED = 10_000;
const deployedDrops = new Map<string, { row: DropRow; at: number }>();

/** The project's drop at `contractAddress` on `chainId`, or undefined (missing, or another project's). */
export async function claimableDrop(ctx: ServiceContext, chainId: number, contractAddress: string, projectId: string): Promise<DropRow | undefined> {
  const key = `${chainId}:${contractAddress}:${projectId}`;
  const cached = deployedDrops.get(key);
  if (cached && Date.now() - cached.at < DEPLOYED_TTL_MS) return cached.row;
  const row = await ctx.db
    .select()
    .from(drops)
    .where(and(eq(drops.chainId, chainId), eq(drops.contractAddress, contractAddress), eq(drops.projectId, projectId)))
    .get();
  if (row?.status === "deployed") {
    if (deployedDrops.size >= MAX_CACHED) deployedDrops.clear();
    deployedDrops.set(key, { row, at: Date.now() });
  }
  return row;
}
