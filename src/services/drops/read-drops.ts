import { and, asc, count, desc, eq, or, sql, type SQL } from "drizzle-orm";
import { byValueOnly } from "../../db/by-value-only";
import { drops } from "../../db/schema";
import { notFound } from "../../lib/errors";
import type { PaginateQuery } from "../../lib/paginate";
import type { DropView } from "../../schemas/resources";
import type { ServiceContext } from "../context";
import { dropView } from "../views";

export interface DropFilters {
  projectId?: string;
  chainId?: number;
  contractAddress?: string;
}

function whereOf(filters: DropFilters, readerProjectId: string): SQL | undefined {
  const conditions = [
    // Another project's drop is listed once its contract is live: a pending or failed deploy
    // names an address with no code (the owner still sees its own, to follow them).
    or(eq(drops.status, "deployed"), eq(drops.projectId, readerProjectId)),
    filters.projectId === undefined ? undefined : eq(drops.projectId, filters.projectId),
    // A project's few drops are found on its own index; the chain then only filters them.
    filters.chainId === undefined ? undefined : filters.projectId === undefined ? eq(drops.chainId, filters.chainId) : sql`${byValueOnly(drops.chainId)} = ${filters.chainId}`,
    filters.contractAddress === undefined ? undefined : eq(drops.contractAddress, filters.contractAddress),
  ].filter((condition): condition is SQL => condition !== undefined);
  return and(...conditions);
}

/** The global drop list (a marketplace read): deployed drops, and the reader's own in any state; blindbox keys only for the owning project. */
export async function listDrops(
  { db }: ServiceContext,
  query: PaginateQuery,
  filters: DropFilters,
  readerProjectId: string,
): Promise<{ rows: DropView[]; total: number }> {
  const where = whereOf(filters, readerProjectId);
  const ordering = query.sortBy.map(([, direction]) => (direction === "ASC" ? asc(drops.createdAt) : desc(drops.createdAt)));
  // Rows with equal createdAt keep a stable order across pages.
  ordering.push(asc(drops.id));
  const [totalRow, rows] = await db.batch([
    db.select({ total: count() }).from(drops).where(where),
    db
      .select()
      .from(drops)
      .where(where)
      .orderBy(...ordering)
      .limit(query.limit)
      .offset((query.page - 1) * query.limit),
  ]);
  return { rows: rows.map((row) => dropView(row, readerProjectId)), total: totalRow[0]?.total ?? 0 };
}

/** A project's own drop; another project's drop is indistinguishable from a missing one. */
export async function getOwnDropRow({ db }: ServiceContext, projectId: string, dropId: string) {
  const row = await db
    .select()
    .from(drops)
    .where(and(eq(drops.id, dropId), eq(drops.projectId, projectId)))
    .get();
  if (!row) throw notFound("drop");
  return row;
}

export async function getDrop(ctx: ServiceContext, projectId: string, dropId: string): Promise<DropView> {
  return dropView(await getOwnDropRow(ctx, projectId, dropId), projectId);
}
