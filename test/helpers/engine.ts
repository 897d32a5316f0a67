// Driving the wallet engine's pieces directly (a SequencerCore on a sequencer's storage, intents
// without a route in front), for tests of failures no request can cause.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import type { Address } from "viem";
import { sequencerStub, watcherStub } from "../../src/services/durable-object-stubs";
import { SequencerCore, type WatcherPort } from "../../src/services/engine/sequencer";
import type { TxIntent, WatchedTransaction } from "../../src/services/engine/types";
import { expect } from "vitest";
import { chainClient, fund, rpc, waitForTransaction } from "./chain";
import { createTestProject, type TestProject } from "./projects";

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Reads until `done` (or the timeout: the caller's assertions then fail on the last value). */
export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(250);
  }
}

/** The transaction's D1 row (its id only), or null: a withdrawn transaction leaves none. */
export const storedRow = (id: string) => env.DB.prepare("select id from transactions where id = ?").bind(id).first();

/** Waits until the transaction settles, asserts it confirmed, and returns its nonce on chain. */
export async function confirmedNonce(id: string, apiKey: string): Promise<number> {
  const settled = await waitForTransaction(id, apiKey);
  expect(settled.status).toBe("confirmed");
  return (await chainClient().getTransaction({ hash: settled.transactionHash })).nonce;
}

export async function walletIndexOf(projectId: string): Promise<number> {
  const row = await env.DB.prepare("select wallet_index from projects where id = ?").bind(projectId).first<{ wallet_index: number }>();
  return row!.wallet_index;
}

/** 1 wei to 0x…dEaD from the project's wallet. */
export function transferIntent(project: Pick<TestProject, "id" | "walletAddress">, walletIndex: number): TxIntent {
  return {
    transactionId: crypto.randomUUID(),
    jobId: crypto.randomUUID(),
    projectId: project.id,
    walletIndex,
    walletAddress: project.walletAddress,
    chainId: 1868,
    kind: "transfer",
    subjectId: null,
    to: "0x000000000000000000000000000000000000dEaD",
    data: "0x",
    value: "1",
    metadata: null,
    payload: null,
  };
}

export const realWatchers = (id: string): WatcherPort => watcherStub(env, id);
export const noGapCheck = () => Promise.resolve();

/** Runs `use` inside the project's WalletSequencer with a core of its own on the object's storage. */
export function withSequencerStorage<T>(project: Pick<TestProject, "walletAddress">, use: (storage: DurableObjectStorage) => Promise<T>): Promise<T> {
  return runInDurableObject(sequencerStub(env, 1868, project.walletAddress), (_instance, state) => use(state.storage));
}

/** A transaction from the project wallet that the service never signed (anvil impersonation). */
export async function spendOutsideTheService(wallet: Address | string): Promise<void> {
  await rpc("anvil_impersonateAccount", [wallet]);
  await rpc("eth_sendTransaction", [{ from: wallet, to: wallet, value: "0x0" }]);
  await rpc("anvil_stopImpersonatingAccount", [wallet]);
}

export const newCore = (storage: DurableObjectStorage, watchers: (id: string) => WatcherPort = realWatchers) =>
  new SequencerCore(env, storage, watchers, noGapCheck);

/** A new project with a funded wallet: its index, address and next nonce (pending included). */
export async function fundedProject(name: string) {
  const project = await createTestProject(name);
  await fund(project.walletAddress);
  const wallet = project.walletAddress as Address;
  const [walletIndex, nextNonce] = await Promise.all([walletIndexOf(project.id), chainClient().getTransactionCount({ address: wallet, blockTag: "pending" })]);
  return { project, walletIndex, wallet, nextNonce };
}

/** The fees of every made-up watcher record (2 gwei cap, 1 gwei tip). */
export const RECORD_FEES = { maxFeePerGas: "2000000000", maxPriorityFeePerGas: "1000000000" };

/**
 * A watcher's record of `intent` at `nonce`, as the sequencer would store it but with made-up
 * bytes (`raw`): its one hash is `hash` (by default the nonce as a 32-byte word); `overrides`
 * change anything else.
 */
export function watchedRecord(intent: TxIntent, nonce: number, { hash, ...overrides }: Partial<WatchedTransaction> & { hash?: string } = {}): WatchedTransaction {
  return {
    id: intent.transactionId,
    projectId: intent.projectId,
    chainId: intent.chainId,
    walletAddress: intent.walletAddress,
    walletIndex: intent.walletIndex,
    kind: intent.kind,
    subjectId: null,
    nonce,
    to: intent.to,
    data: intent.data,
    value: intent.value,
    gas: "21000",
    ...RECORD_FEES,
    raw: "0x02",
    hashes: [{ hash: hash ?? `0x${nonce.toString(16).padStart(64, "0")}`, purpose: "original", ...RECORD_FEES }],
    createdAt: Date.now(),
    pendingSinceBlock: null,
    polls: 0,
    bumps: 0,
    state: "sent",
    ...overrides,
  };
}
