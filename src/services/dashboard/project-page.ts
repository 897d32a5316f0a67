// What the dashboard shows of one project, and the key operations scoped to it.
import { and, eq } from "drizzle-orm";
import { apiKeys } from "../../db/schema";
import { notFound, validationError } from "../../lib/errors";
import type { KeyKind } from "../auth/keys";
import type { ServiceContext } from "../context";
import { listDrops } from "../drops/read-drops";
import { createKey, getProjectRow, listKeys, revokeKey, type KeyView } from "../projects";
import { projectWalletInfo } from "../project-wallet/wallet-info";
import { listTransactions } from "../transactions/read-transactions";
import type { TransactionView } from "../engine/transaction-view";

export const DASHBOARD_LIST_LIMIT = 50;

export interface TransactionSummary {
  id: string;
  status: TransactionView["status"];
  chainId: number;
  transactionHash: string;
  errorMessage: string | null;
  createdAt: string;
  updatedAt: string;
}

const summary = (tx: TransactionView): TransactionSummary => ({
  id: tx.id,
  status: tx.status,
  chainId: tx.chainId,
  transactionHash: tx.transactionHash,
  errorMessage: tx.errorMessage,
  createdAt: tx.createdAt,
  updatedAt: tx.updatedAt,
});

/** The newest transactions of a project (the page's table and its polling endpoint). */
export async function recentTransactions(ctx: ServiceContext, projectId: string) {
  await getProjectRow(ctx, projectId);
  const { data, total } = await listTransactions(ctx, projectId, { page: 1, limit: DASHBOARD_LIST_LIMIT });
  return { data: data.map(summary), total };
}

export async function projectOverview(ctx: ServiceContext, projectId: string) {
  const row = await getProjectRow(ctx, projectId);
  const [keys, wallet, drops, transactions] = await Promise.all([
    listKeys(ctx, projectId),
    projectWalletInfo(ctx, projectId),
    listDrops(ctx, { page: 1, limit: DASHBOARD_LIST_LIMIT, sortBy: [["createdAt", "DESC"]], filter: {} }, { projectId }, projectId),
    recentTransactions(ctx, projectId),
  ]);
  return {
    project: { id: row.id, name: row.name, walletAddress: row.walletAddress, createdAt: row.createdAt.toISOString() },
    keys,
    wallet,
    drops,
    transactions,
  };
}

export function parseKeyKind(value: unknown): KeyKind {
  if (value === "api" || value === "secret") return value;
  throw validationError("kind", 'must be "api" or "secret"');
}

/** `createdByKeyId`: the secret key a project session signed in with; null for an admin session. */
export async function createProjectKey(ctx: ServiceContext, projectId: string, kind: unknown, createdByKeyId: string | null) {
  return createKey(ctx, projectId, parseKeyKind(kind), createdByKeyId);
}

/**
 * Revokes a key of this project, and with `withDescendants` the keys it created (decision 110);
 * another project's key is a 404 like a missing one. `revoked`: the ids this call revoked.
 */
export async function revokeProjectKey(
  ctx: ServiceContext,
  projectId: string,
  keyId: string,
  withDescendants: boolean,
): Promise<Pick<KeyView, "id" | "kind" | "prefix"> & { revoked: string[] }> {
  const row = await ctx.db
    .select({ id: apiKeys.id, kind: apiKeys.kind, prefix: apiKeys.prefix })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.projectId, projectId)))
    .get();
  if (!row) throw notFound("key");
  return { ...row, revoked: await revokeKey(ctx, keyId, { withDescendants }) };
}

/** The admin API's rule for names (trimmed, 1 to 200 characters). */
export function parseProjectName(value: unknown): string {
  const name = typeof value === "string" ? value.trim() : "";
  if (name.length < 1 || name.length > 200) throw validationError("name", "must be 1 to 200 characters");
  return name;
}
