// Effects of collection logs (ERC-721 / ERC-1155 transfers, approvals) on D1, applied exactly
// once whoever sees the log first: the receipt of a transaction the service sent, or the indexer.
// Every statement is guarded by the log's claim (guard.ts); the caller puts `claimLog` first in
// the batch. The one exception, reincludedTransferStatement, is idempotent without a claim.
import type { ApprovalForAll, Erc1155Transfer, Erc721Transfer, TokenApproval } from "../../chain/transfer-logs";
import { GUARD_SQL, guardParams, type LogGuard } from "./guard";
import { deactivateOrdersStatement, ORDER_OPERATOR_SQL, refreshListingsStatement } from "./order-effects";
import { OFFERER_ORDERS_INDEX } from "../orders/best-listing";

export { claimLog, newLogGuard, type LogGuard } from "./guard";

const ZERO = "0x0000000000000000000000000000000000000000";

export interface AssetFields {
  name: string | null;
  description: string | null;
  imageUrl: string | null;
  animationUrl: string | null;
  tokenUri: string | null;
}

// The ownership row `row` was made by a Transfer after the one being applied (rows from before
// migration 0013 have no position: older than any log). Bind `newerParams(guard)`.
const madeAfterThisLog = (row: string) =>
  `(coalesce(${row}.block_number, -1) > ? or (coalesce(${row}.block_number, -1) = ? and coalesce(${row}.log_index, -1) > ?))`;
const newerParams = (guard: LogGuard) => [guard.blockNumber, guard.blockNumber, guard.logIndex];
/** The token has such a row; bind the token's key, then `newerParams(guard)`. */
const NEWER_OWNER = `exists (select 1 from ownerships newer where newer.chain_id = ? and newer.contract_address = ? and newer.token_id = ? and ${madeAfterThisLog("newer")})`;

/**
 * ERC-721 Transfer: ownership moves; a mint also creates the asset row if it is new, a burn deletes
 * it (its listings are dead already: nobody but the zero address holds the token). Transfers of
 * one token can arrive out of chain order (a receipt applies a buy at once, the indexer reaches an
 * earlier transfer of the same token later), so only the latest one decides the owner and kills
 * the other offerers' listings (decision 53).
 */
export function erc721TransferStatements(
  db: D1Database,
  guard: LogGuard,
  transfer: Erc721Transfer,
  asset: AssetFields | null,
  kept?: KeptOperators,
): D1PreparedStatement[] {
  const now = Date.now();
  const key = [guard.chainId, transfer.contract, transfer.tokenId];
  const isLatest = { sql: `not ${NEWER_OWNER}`, params: [...key, ...newerParams(guard)] };
  const statements = [
    db
      .prepare(
        `delete from ownerships where chain_id = ? and contract_address = ? and token_id = ? and not ${madeAfterThisLog("ownerships")} and ${GUARD_SQL}`,
      )
      .bind(...key, ...newerParams(guard), ...guardParams(guard)),
  ];
  if (transfer.to !== ZERO) {
    statements.push(
      db
        .prepare(
          `insert into ownerships (chain_id, contract_address, token_id, owner_address, balance, block_number, log_index, updated_at)
           select ?, ?, ?, ?, '1', ?, ?, ? where ${GUARD_SQL} and ${isLatest.sql}
           on conflict do update set balance = '1', block_number = excluded.block_number, log_index = excluded.log_index, updated_at = excluded.updated_at`,
        )
        .bind(...key, transfer.to, guard.blockNumber, guard.logIndex, now, ...guardParams(guard), ...isLatest.params),
    );
  }
  if (transfer.from !== ZERO) {
    // Only the new owner can deliver the token now: everybody else's listings of it are dead. A
    // transfer also clears the token's per-token approval, which D1 cannot see: a holder sending
    // the token to itself loses its own listings too, except those whose operator it has
    // approved for all (`keepOperators`, read by the indexer at the head: decision 91).
    const keep = notKeptSql(kept);
    const dead =
      transfer.from === transfer.to
        ? { sql: `chain_id = ? and contract_address = ? and token_id = ? and (offerer != ? or ${keep.sql}) and ${isLatest.sql}`, params: [...key, transfer.to, ...keep.params, ...isLatest.params] }
        : { sql: `chain_id = ? and contract_address = ? and token_id = ? and offerer != ? and ${isLatest.sql}`, params: [...key, transfer.to, ...isLatest.params] };
    statements.push(
      deactivateOrdersStatement(db, guard, dead.sql, dead.params, now),
      refreshListingsStatement(db, guard, "chain_id = ? and contract_address = ? and token_id = ?", key, now),
    );
  }
  if (asset) statements.push(assetInsertStatement(db, guard, transfer.contract, transfer.tokenId, asset, now));
  if (transfer.to === ZERO) {
    // A burned token leaves explore and GET /v1/assets (404), unless a later mint of the same id
    // was applied first (its ownership row is newer than this log).
    statements.push(
      db
        .prepare(`delete from assets where chain_id = ? and contract_address = ? and token_id = ? and ${isLatest.sql} and ${GUARD_SQL}`)
        .bind(...key, ...isLatest.params, ...guardParams(guard)),
    );
  }
  return statements;
}

/**
 * An ERC-721 Transfer whose transaction a reorg brought back in another block: its effects stand
 * from the first block (decision 75), but the ownership row it made keeps that block's position,
 * and a later transfer of the token in the new chain can sort before it and be ignored. The row
 * takes the log's new position if it still carries the old one (one of the transaction's claims
 * from another block: nothing has replaced it since). Not guarded by a claim: a second run finds
 * no row with an old position and changes nothing (decision 92).
 */
export function reincludedTransferStatement(db: D1Database, chainId: number, transfer: Erc721Transfer): D1PreparedStatement {
  return db
    .prepare(
      `update ownerships set block_number = ?, log_index = ?, updated_at = ?
       where chain_id = ? and contract_address = ? and token_id = ? and owner_address = ?
         and exists (select 1 from chain_events c where c.chain_id = ownerships.chain_id and c.transaction_hash = ? and c.block_hash <> ?
                       and c.block_number = ownerships.block_number and c.log_index = ownerships.log_index)`,
    )
    .bind(transfer.blockNumber, transfer.logIndex, Date.now(), chainId, transfer.contract, transfer.tokenId, transfer.to, transfer.transactionHash, transfer.blockHash);
}

/**
 * One (id, value) pair of an ERC-1155 TransferSingle/TransferBatch. Balances are decimal text;
 * the arithmetic runs in SQLite's 64-bit integers (balances up to 9.2·10^18 units of one id are
 * exact). Rows that reach 0 are deleted; the sender's listings for more than it still holds die.
 */
export function erc1155TransferStatements(
  db: D1Database,
  guard: LogGuard,
  transfer: Erc1155Transfer,
  asset: AssetFields | null,
): D1PreparedStatement[] {
  const now = Date.now();
  const key = [guard.chainId, transfer.contract, transfer.id];
  const statements: D1PreparedStatement[] = [];
  const moves = BigInt(transfer.value) > 0n;
  if (moves && transfer.from !== ZERO) {
    const owner = "chain_id = ? and contract_address = ? and token_id = ? and owner_address = ?";
    statements.push(
      db
        .prepare(
          `update ownerships set balance = cast(cast(balance as integer) - cast(? as integer) as text), updated_at = ?
           where ${owner} and ${GUARD_SQL}`,
        )
        .bind(transfer.value, now, ...key, transfer.from, ...guardParams(guard)),
      db
        .prepare(`delete from ownerships where ${owner} and cast(balance as integer) <= 0 and ${GUARD_SQL}`)
        .bind(...key, transfer.from, ...guardParams(guard)),
    );
  }
  if (moves && transfer.to !== ZERO) {
    statements.push(
      db
        .prepare(
          `insert into ownerships (chain_id, contract_address, token_id, owner_address, balance, updated_at)
           select ?, ?, ?, ?, ?, ? where ${GUARD_SQL}
           on conflict do update set balance = cast(cast(ownerships.balance as integer) + cast(excluded.balance as integer) as text),
                                     updated_at = excluded.updated_at`,
        )
        .bind(...key, transfer.to, transfer.value, now, ...guardParams(guard)),
    );
  }
  if (moves && transfer.from !== ZERO) {
    const overListed = `chain_id = ? and contract_address = ? and token_id = ? and offerer = ?
      and cast(quantity as integer) > coalesce((select cast(o.balance as integer) from ownerships o
        where o.chain_id = orders.chain_id and o.contract_address = orders.contract_address
          and o.token_id = orders.token_id and o.owner_address = orders.offerer), 0)`;
    statements.push(
      deactivateOrdersStatement(db, guard, overListed, [...key, transfer.from], now),
      refreshListingsStatement(db, guard, "chain_id = ? and contract_address = ? and token_id = ?", key, now),
    );
  }
  if (asset) statements.push(assetInsertStatement(db, guard, transfer.contract, transfer.id, asset, now));
  return statements;
}

/**
 * ApprovalForAll revoked: every listing of that owner on that contract whose operator (Seaport,
 * or the order's conduit) lost its approval goes `inactive`; the others stay (decision 55).
 */
export function approvalForAllStatements(
  db: D1Database,
  guard: LogGuard,
  approval: ApprovalForAll,
  seaportAddress: string,
): D1PreparedStatement[] {
  if (approval.approved) return [];
  const now = Date.now();
  const where = `chain_id = ? and contract_address = ? and offerer = ? and ${ORDER_OPERATOR_SQL} = ?`;
  const params = [guard.chainId, approval.contract, approval.owner, seaportAddress.toLowerCase(), approval.operator];
  // The owner's orders, not the contract's: without statistics SQLite would walk every order of
  // the contract on orders_contract_status_price_idx (decision 34).
  return [
    deactivateOrdersStatement(db, guard, where, params, now, OFFERER_ORDERS_INDEX),
    refreshListingsStatement(db, guard, where, params, now, OFFERER_ORDERS_INDEX),
  ];
}

/**
 * ERC-721 Approval: the token's one approved address changed. The owner's listings of it whose
 * operator is neither the new address nor one it has approved for all (`keepOperators`, read by
 * the indexer at the head) go `inactive`: they rested on the approval just replaced (decision 91).
 */
export function tokenApprovalStatements(
  db: D1Database,
  guard: LogGuard,
  approval: TokenApproval,
  seaportAddress: string,
  kept?: KeptOperators,
): D1PreparedStatement[] {
  const now = Date.now();
  const keep = notKeptSql(kept);
  const where = `chain_id = ? and contract_address = ? and token_id = ? and offerer = ? and ${ORDER_OPERATOR_SQL} != ? and ${keep.sql}`;
  const params = [guard.chainId, approval.contract, approval.tokenId, approval.owner, seaportAddress.toLowerCase(), approval.approved, ...keep.params];
  return [deactivateOrdersStatement(db, guard, where, params, now), refreshListingsStatement(db, guard, where, params, now)];
}

/** Operators the holder has approved for all at the head, lower-case; `seaport` is what a null operator means. */
export interface KeptOperators {
  seaport: string;
  operators: readonly string[];
}

/** Orders whose operator is not kept. */
function notKeptSql(kept: KeptOperators | undefined): { sql: string; params: unknown[] } {
  if (!kept?.operators.length) return { sql: "1", params: [] };
  return { sql: `${ORDER_OPERATOR_SQL} not in (select value from json_each(?))`, params: [kept.seaport.toLowerCase(), JSON.stringify(kept.operators)] };
}

/** Metadata a mint brings; a row made earlier (a listing of the token) may lack it. */
const MINT_FIELDS = ["name", "name_lower", "description", "image_url", "animation_url", "token_uri"];
const fillEmpty = MINT_FIELDS.map((field) => `${field} = coalesce(nullif(assets.${field}, ''), excluded.${field})`).join(", ");
const anyToFill = MINT_FIELDS.map((field) => `(coalesce(assets.${field}, '') = '' and coalesce(excluded.${field}, '') != '')`).join(" or ");

/**
 * The asset row of a newly minted token, attached to its collection (nothing if unknown). A row
 * that exists already keeps its values and gets the ones it lacks: POST /v1/orders creates a bare
 * row for a token whose mint is not applied yet, and that row must not lose the mint's metadata.
 */
function assetInsertStatement(db: D1Database, guard: LogGuard, contract: string, tokenId: string, asset: AssetFields, now: number) {
  return db
    .prepare(
      `insert into assets (id, chain_id, contract_address, token_id, collection_id, schema, name, name_lower, description,
                           image_url, animation_url, token_uri, is_verified, created_at, updated_at)
       select ?, c.chain_id, c.contract_address, ?, c.id, c.schema, ?, ?, ?, ?, ?, ?, c.is_verified, ?, ?
       from collections c
       where c.chain_id = ? and c.contract_address = ? and ${GUARD_SQL}
       on conflict (chain_id, contract_address, token_id) do update set ${fillEmpty}, updated_at = excluded.updated_at
       where ${anyToFill}`,
    )
    .bind(
      crypto.randomUUID(),
      tokenId,
      asset.name,
      asset.name?.toLowerCase() ?? null,
      asset.description,
      asset.imageUrl,
      asset.animationUrl,
      asset.tokenUri,
      now,
      now,
      guard.chainId,
      contract,
      ...guardParams(guard),
    );
}
