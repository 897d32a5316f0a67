// A confirmed transaction's receipt, applied the way the indexer applies logs (it leaves a
// pending transaction's logs to the settlement): transfers and approvals of known collections,
// Seaport fills. Each log is claimed first, so whoever sees it first applies it, once. Most
// transaction kinds write this on confirmation (engine/kinds.ts).
import { blockTimestampMs } from "../../chain/log-reader";
import { getChain } from "../../lib/chains";
import { claimLog, newLogGuard, type AssetFields } from "../chain-events/apply";
import { knownCollections } from "../collections/known-collections";
import type { ServiceContext } from "../context";
import type { Settlement, SettledTransaction } from "../engine/kinds";
import { mintKey } from "./asset-fields";
import { logEffects } from "./apply-logs";
import { decodeIndexedLogs, mintsOf, type IndexedEvent } from "./decode";

type Confirmed = Pick<SettledTransaction<unknown, Extract<Settlement, { status: "confirmed" }>>, "chainId" | "settlement" | "stillPending">;

/** A kind's own writes for the tokens its transaction minted on one contract (a drop's claim). */
export interface MintedTokenWrites {
  /** Lower-case contract address. */
  contract: string;
  /** Given the ids the receipt minted there, in log order: each one's asset fields, and statements for the batch. */
  write(tokenIds: string[]): Promise<{ assets: AssetFields[]; statements: D1PreparedStatement[] }>;
}

export async function receiptEffects(ctx: ServiceContext, settled: Confirmed, minted?: MintedTokenWrites): Promise<D1PreparedStatement[]> {
  const db = ctx.env.DB;
  const chain = getChain(ctx.env, settled.chainId);
  const { receipt } = settled.settlement;
  const events = decodeIndexedLogs(receipt.logs, chain.seaportAddress);
  if (!events.length) return [];
  const known = await knownCollections(db, chain.chainId, events.filter((e) => e.type !== "seaport").map(contractOf));
  const relevant = events.filter((event) => event.type === "seaport" || known.has(contractOf(event)));

  const assets = new Map<string, AssetFields>();
  const statements: D1PreparedStatement[] = [];
  if (minted) {
    const tokenIds = relevant.flatMap(mintsOf).filter((mint) => mint.contract === minted.contract).map((mint) => mint.tokenId);
    const written = await minted.write(tokenIds);
    tokenIds.forEach((tokenId, index) => assets.set(mintKey(minted.contract, tokenId), written.assets[index]!));
    statements.push(...written.statements);
  }
  const sells = relevant.some((event) => event.type === "seaport" && event.event.kind === "OrderFulfilled");
  const blockTime = sells ? await blockTimestampMs(chain.rpcUrl, Number(receipt.blockNumber)) : Date.now();
  return statements.concat(
    relevant.flatMap((event) => {
      const guard = newLogGuard(chain.chainId, event);
      return [claimLog(db, guard, settled.stillPending), ...logEffects(db, chain, guard, event, assets, blockTime)];
    }),
  );
}

/** The writes of a kind whose only effect is its receipt's logs. */
export const receiptEffectsOnly = (ctx: ServiceContext, settled: Confirmed) => receiptEffects(ctx, settled);

function contractOf(event: IndexedEvent): string {
  switch (event.type) {
    case "erc721":
      return event.transfer.contract;
    case "erc1155":
      return event.transfers[0]!.contract;
    case "approval":
    case "tokenApproval":
      return event.approval.contract;
    case "seaport":
      return "";
  }
}
