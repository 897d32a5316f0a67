// What the engine knows of a kind of transaction: nothing, until its feature registers it. Each
// kind is defined in its own feature folder (drops/transaction-kinds.ts, ...) and registered at
// module load by src/services/transaction-kinds.ts, which the Worker entry and both Durable
// Objects import; the engine itself imports no feature. docs/architecture.md shows how to add one.
import type { ZodType } from "zod";
import type { RevertAbi } from "../../chain/rpc-errors";
import type { TransactionReceipt } from "../../chain/transactions";
import type { transactions } from "../../db/schema";
import type { ServiceContext } from "../context";

/** The `transactions.kind` values (src/db/schema.ts): a new kind is added there too. */
export type TxKind = (typeof transactions.kind.enumValues)[number];

/** A condition to AND into a statement's `where`, with its parameters. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
}

export type Settlement =
  | { status: "confirmed"; receipt: TransactionReceipt }
  /** `reason` when the receipt succeeded but did not do what was asked (decision 60). */
  | { status: "reverted"; receipt: TransactionReceipt; reason?: string }
  | { status: "failed"; reason: string; receipt?: TransactionReceipt };

/** What an outcome's writer is told about the transaction that settled. */
export interface SettledTransaction<Payload, S extends Settlement = Settlement> {
  id: string;
  projectId: string;
  chainId: number;
  subjectId: string | null;
  nonce: number;
  /** The payload the request stored on its row, parsed; null when the row has none. */
  payload: Payload | null;
  settlement: S;
  /**
   * The row is still pending at this attempt's nonce. Every statement an outcome writes must
   * carry it: the batch then does nothing once another attempt, or an earlier run, settled it.
   */
  stillPending: SqlCondition;
  /** The settlement's clock (ms), for `updated_at` columns. */
  settledAt: number;
}

/** Statements for the settlement's D1 batch; they run before the row's own update. */
type OutcomeWriter<Payload, S extends Settlement> = (ctx: ServiceContext, settled: SettledTransaction<Payload, S>) => Promise<D1PreparedStatement[]>;

export interface TransactionKindDefinition<Payload = null> {
  name: TxKind;
  /** Parses the payload the request stored on its row (written with `payloadJson`). */
  payload?: ZodType<Payload>;
  /** Decodes a revert of the call's simulation into the caller's 422; a function when it depends on the call. */
  revertAbi?: RevertAbi | ((call: { to: string; data: string; value: string }) => RevertAbi | undefined);
  /**
   * While a transaction of this kind and subject is unmined, another one is refused with
   * `conflict` naming it (services/engine/subject-holds.ts). `keptAfterConfirmedMs`: the
   * hold outlives a confirmation by that long (a request that read the chain before it was
   * mined would otherwise send the same thing again).
   */
  holdsSubject?: { keptAfterConfirmedMs: number } | true;
  /**
   * What each outcome writes besides the row's status, in the same D1 batch. `confirmed` is
   * required: most kinds pass the receipt's logs to the indexer's receiptEffects, which applies
   * them at once rather than when the indexer reaches the block.
   */
  outcome: {
    confirmed: OutcomeWriter<Payload, Extract<Settlement, { status: "confirmed" }>>;
    reverted?: OutcomeWriter<Payload, Extract<Settlement, { status: "reverted" }>>;
    failed?: OutcomeWriter<Payload, Extract<Settlement, { status: "failed" }>>;
  };
}

export interface TransactionKind<Payload = null> extends TransactionKindDefinition<Payload> {
  /** The row's `payload` column for this kind's request. */
  payloadJson(payload: Payload): string;
}

/** A kind as its feature declares it; registered by src/services/transaction-kinds.ts. */
export function defineTransactionKind<Payload = null>(definition: TransactionKindDefinition<Payload>): TransactionKind<Payload> {
  return { ...definition, payloadJson: (payload) => JSON.stringify(payload) };
}

// Kinds differ in their payload; each writer is handed the payload its own schema parsed.
type AnyKind = TransactionKind<any>;
const registered = new Map<TxKind, AnyKind>();

export function registerTransactionKinds(kinds: readonly AnyKind[]): void {
  for (const kind of kinds) {
    if (registered.has(kind.name) && registered.get(kind.name) !== kind) throw new Error(`transaction kind ${kind.name} is registered twice`);
    registered.set(kind.name, kind);
  }
}

export function transactionKind(name: TxKind): AnyKind {
  const kind = registered.get(name);
  if (!kind) throw new Error(`transaction kind ${name} is not registered (src/services/transaction-kinds.ts)`);
  return kind;
}

export const registeredKinds = (): TxKind[] => [...registered.keys()];

export function revertAbiOf(name: TxKind, call: { to: string; data: string; value: string }): RevertAbi | undefined {
  const { revertAbi } = transactionKind(name);
  return typeof revertAbi === "function" ? revertAbi(call) : revertAbi;
}

/** Whether a transaction of this kind and subject holds the subject until it settles. */
export const holdsSubject = (subject: { kind: TxKind; subjectId: string | null }) =>
  subject.subjectId !== null && transactionKind(subject.kind).holdsSubject !== undefined;

/** How long a confirmed transaction of this kind keeps holding its subject (0: released at once). */
export function heldAfterConfirmedMs(name: TxKind): number {
  const hold = transactionKind(name).holdsSubject;
  return hold === undefined || hold === true ? 0 : hold.keptAfterConfirmedMs;
}
