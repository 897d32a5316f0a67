import { kickWebhooks, sequencerStub } from "../../durable-objects/stubs";
import { enqueueWebhookStatement, projectHasWebhooks, webhookPayload } from "../webhooks/events";
import { AppError, forbidden } from "../../lib/errors";
import type { projects } from "../../db/schema";
import type { ServiceContext } from "../context";
import type { TransactionView } from "../transactions/transaction-view";
import type { TxIntent } from "../engine/types";

type ProjectRow = typeof projects.$inferSelect;

/** A `projectId` in a body must be the key's own project (DESIGN §3). */
export function assertOwnProject(bodyProjectId: string | undefined, keyProjectId: string) {
  if (bodyProjectId !== undefined && bodyProjectId.toLowerCase() !== keyProjectId.toLowerCase()) {
    throw forbidden("projectId does not match the key's project");
  }
}

/** The sequencer refused: this wallet's transaction of the same kind and subject is still unmined. */
export class SubjectStillPending extends AppError {
  constructor(
    message: string,
    readonly pendingTransactionId: string,
  ) {
    super("conflict", message);
  }
}

export type SendRequest = Omit<TxIntent, "transactionId" | "projectId" | "walletIndex" | "walletAddress" | "jobId"> & { jobId?: string };

/** Hands an intent to the wallet's sequencer; a refusal becomes the matching AppError. */
export async function sendFromProjectWallet(
  ctx: ServiceContext,
  project: ProjectRow,
  request: SendRequest,
): Promise<{ transaction: TransactionView; firstTokenId?: number }> {
  const intent: TxIntent = {
    ...request,
    transactionId: crypto.randomUUID(),
    jobId: request.jobId ?? crypto.randomUUID(),
    projectId: project.id,
    walletIndex: project.walletIndex,
    walletAddress: project.walletAddress,
  };
  const result = await sequencerStub(ctx.env, intent.chainId, project.walletAddress).submit(intent);
  if (!result.ok) {
    if (result.pendingTransactionId) throw new SubjectStillPending(result.error.message, result.pendingTransactionId);
    throw new AppError(result.error.code, result.error.message, result.error.details);
  }
  const transaction = result.transaction as TransactionView;
  if (await projectHasWebhooks(ctx.env.DB, project.id)) {
    const queued = await enqueueWebhookStatement(ctx.env.DB, webhookPayload("transaction.pending", { transaction }), { sql: "?", params: [project.id] }).run();
    if (queued.meta.changes) await kickWebhooks(ctx.env, project.id);
  }
  return { transaction, ...(result.firstTokenId !== undefined ? { firstTokenId: result.firstTokenId } : {}) };
}
