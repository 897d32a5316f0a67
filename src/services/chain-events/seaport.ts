// Effects of Seaport events on orders, best listings and sales. Like the transfer effects
// (apply.ts), every statement is guarded by the log's claim; the caller puts `claimLog` first.
import type { SeaportEvent } from "../../chain/seaport-events";
import { GUARD_SQL, guardParams, type LogGuard } from "./guard";
import { refreshListingsStatement } from "./order-effects";
import { saleOf, type Sale } from "./seaport-sale";
import { checksumAddress } from "../../chain/address";
import { enqueueWebhookStatement, webhookPayload } from "../webhooks/events";

/** order.filled for the project that listed the order through us (none for orders built elsewhere). */
function orderFilledWebhook(db: D1Database, guard: LogGuard, event: Extract<SeaportEvent, { kind: "OrderFulfilled" }>, chainId: number) {
  const payload = webhookPayload("order.filled", {
    order: {
      orderHash: event.orderHash,
      chainId,
      offerer: checksumAddress(event.offerer),
      recipient: checksumAddress(event.recipient),
      offer: event.offer.map((item) => ({ ...item, token: checksumAddress(item.token) })),
      consideration: event.consideration.map((item) => ({ ...item, token: checksumAddress(item.token), recipient: checksumAddress(item.recipient) })),
    },
    transactionHash: event.transactionHash,
    blockNumber: event.blockNumber,
  });
  return enqueueWebhookStatement(
    db,
    payload,
    { sql: "select project_id from orders where chain_id = ? and order_hash = ?", params: [chainId, event.orderHash] },
    { sql: GUARD_SQL, params: guardParams(guard) },
  );
}

export interface SeaportEventContext {
  chainId: number;
  /** Time of the event's block (a sale's `sold_at`). */
  blockTimestampMs: number;
  nowMs: number;
}

/**
 * Counters are uint256 in decimal text and Seaport 1.6 raises them by a 128-bit pseudo-random
 * step, so they are compared as canonical decimals (shorter is smaller), never through CAST.
 */
const COUNTER_BELOW = "(length(counter) < length(?) or (length(counter) = length(?) and counter < ?))";
const counterBelowParams = (counter: string) => [counter, counter, counter];

export function seaportEventStatements(
  db: D1Database,
  guard: LogGuard,
  event: SeaportEvent,
  context: SeaportEventContext,
): D1PreparedStatement[] {
  const { chainId, nowMs } = context;
  switch (event.kind) {
    case "OrderFulfilled": {
      // The chain is authoritative: a fill wins over whatever status we had (inactive, expired…).
      const statements = [
        db
          .prepare(`update orders set status = 'filled', fill_transaction_hash = ?, updated_at = ? where chain_id = ? and order_hash = ? and ${GUARD_SQL}`)
          .bind(event.transactionHash, nowMs, chainId, event.orderHash, ...guardParams(guard)),
        refreshListingsStatement(db, guard, "chain_id = ? and order_hash = ?", [chainId, event.orderHash], nowMs),
      ];
      const sale = saleOf(event);
      if (sale) statements.push(saleInsertStatement(db, guard, event, sale, context));
      statements.push(orderFilledWebhook(db, guard, event, chainId));
      return statements;
    }
    case "OrderCancelled":
      return [
        db
          .prepare(
            `update orders set status = 'cancelled', updated_at = ?
             where chain_id = ? and order_hash = ? and status in ('active', 'inactive', 'expired') and ${GUARD_SQL}`,
          )
          .bind(nowMs, chainId, event.orderHash, ...guardParams(guard)),
        refreshListingsStatement(db, guard, "chain_id = ? and order_hash = ?", [chainId, event.orderHash], nowMs),
      ];
    case "CounterIncremented": {
      const offererBelow = `chain_id = ? and offerer = ? and ${COUNTER_BELOW}`;
      const params = [chainId, event.offerer, ...counterBelowParams(event.newCounter)];
      return [
        db
          .prepare(`update orders set status = 'cancelled', updated_at = ? where status in ('active', 'inactive') and ${offererBelow} and ${GUARD_SQL}`)
          .bind(nowMs, ...params, ...guardParams(guard)),
        refreshListingsStatement(db, guard, `${offererBelow} and status = 'cancelled'`, params, nowMs),
      ];
    }
  }
}

const GWEI = 1_000_000_000n;

/**
 * The sale row, attached to the collection of the token's contract; no row when the collection
 * is unknown. Unique on (chain, transaction, log index), so the receipt path and the indexer can
 * both record it.
 */
function saleInsertStatement(
  db: D1Database,
  guard: LogGuard,
  event: Extract<SeaportEvent, { kind: "OrderFulfilled" }>,
  sale: Sale,
  context: SeaportEventContext,
) {
  const price = BigInt(sale.price);
  return db
    .prepare(
      `insert into sales (id, chain_id, collection_id, contract_address, token_id, quantity, order_hash, seller, buyer, price,
                          price_gwei, price_sub_gwei, currency_address, transaction_hash, log_index, block_number, sold_at, created_at)
       select ?, c.chain_id, c.id, c.contract_address, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
       from collections c
       where c.chain_id = ? and c.contract_address = ? and ${GUARD_SQL}
       on conflict (chain_id, transaction_hash, log_index) do nothing`,
    )
    .bind(
      crypto.randomUUID(),
      sale.tokenId,
      sale.quantity,
      event.orderHash,
      sale.seller,
      sale.buyer,
      sale.price,
      // Text into an INTEGER column: SQLite stores it as an exact 64-bit integer (a JS number
      // would round above 2^53).
      (price / GWEI).toString(),
      Number(price % GWEI),
      sale.currency,
      event.transactionHash,
      event.logIndex,
      event.blockNumber,
      context.blockTimestampMs,
      context.nowMs,
      context.chainId,
      sale.contract,
      ...guardParams(guard),
    );
}
