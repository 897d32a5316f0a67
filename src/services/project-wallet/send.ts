import { kickWebhooks, sequencerStub } from "../durable-object-stubs";
import { enqueueWebhookStatement, queuedForProjects, webhookPayload } from "../webhooks/events";
import { AppError, forbidden, OutcomeUnknownError } from "../../lib/errors";
import { logError } from "../../lib/log";
import type { projects } from "../../db/schema";
import type { ServiceContext } from "../context";
import type { TransactionView } from "../engine/transaction-view";
import type { SubmitResult, TxIntent } from "../engine/types";

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

/**
 * Workers marks a Durable Object call refused because the object's queue is full; an error the
 * object's own code threw (after it may have signed or sent) carries `remote` and is not this.
 */
const isOverloaded = (error: unknown) => {
  const flags = error instanceof Error ? (error as { overloaded?: unknown; remote?: unknown }) : {};
  return flags.overloaded === true && flags.remote !== true;
};

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
  let result: SubmitResult;
  try {
    result = await sequencerStub(ctx.env, intent.chainId, project.walletAddress).submit(intent);
  } catch (error) {
    // Refused before delivery: the object's queue was full, so it never saw the request.
    if (isOverloaded(error)) {
      throw new AppError("rate_limited", "the project wallet's engine is busy with earlier requests; nothing was sent, retry shortly", undefined, { "Retry-After": "1" });
    }
    // No answer from the sequencer (its object was reset mid-call): it may have broadcast
    // already, so this must not read as "nothing sent, retry".
    logError(ctx.env, { where: "sendFromProjectWallet", transactionId: intent.transactionId }, error);
    throw new OutcomeUnknownError(`the wallet engine did not answer; transaction ${intent.transactionId} may have been sent`, intent.transactionId);
  }
  if (!result.ok) {
    if (result.outcomeUnknown) throw new OutcomeUnknownError(result.error.message, intent.transactionId);
    if (result.pendingTransactionId) throw new SubjectStillPending(result.error.message, result.pendingTransactionId);
    throw new AppError(result.error.code, result.error.message, result.error.details);
  }
  const transaction = result.transaction as TransactionView;
  // The transaction is out: nothing after this may turn the answer into an error (a client that
  // retried would send it again), so the event is best effort.
  if (result.announcePending) {
    await announcePending(ctx, project.id, transaction).catch((error: unknown) =>
      logError(ctx.env, { where: "announcePending", transactionId: transaction.id }, error),
    );
  }
  return { transaction, ...(result.firstTokenId !== undefined ? { firstTokenId: result.firstTokenId } : {}) };
}

/**
 * `transaction.pending`, queued only while the row is still pending: a transaction that settled
 * before this runs already has its final event queued, and a late "pending" after it would tell
 * a receiver that keeps the last state it heard the wrong one.
 */
export async function announcePending(ctx: ServiceContext, projectId: string, transaction: TransactionView): Promise<void> {
  const queued = await enqueueWebhookStatement(
    ctx.env.DB,
    webhookPayload("transaction.pending", { transaction }),
    { sql: "?", params: [projectId] },
    { sql: "exists (select 1 from transactions where id = ? and status = 'pending')", params: [transaction.id] },
  ).run();
  if (queuedForProjects([queued]).length) await kickWebhooks(ctx.env, projectId);
}
