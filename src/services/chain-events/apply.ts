// Effects of chain logs on D1, applied exactly once whoever sees the log first (the receipt of a
// transaction the service sent, or the indexer). Each log's statements run in one D1 batch:
// the first claims the log in `chain_events` with a random token, the others only act when the
// claim row carries that token, so a second application of the same log changes nothing.
import type { Erc721Transfer } from "../../chain/transfer-logs";

export interface LogGuard {
  chainId: number;
  transactionHash: string;
  logIndex: number;
  blockNumber: number;
  token: string;
}

const GUARD_SQL = "exists (select 1 from chain_events where chain_id = ? and transaction_hash = ? and log_index = ? and applied_by = ?)";
const guardParams = (guard: LogGuard) => [guard.chainId, guard.transactionHash, guard.logIndex, guard.token];

/**
 * Claims the log. `onlyIf` adds a condition (SQL + params), e.g. "the transaction is still
 * pending", so the receipt path applies nothing once another run has finalised it.
 */
export function claimLog(db: D1Database, guard: LogGuard, onlyIf?: { sql: string; params: unknown[] }): D1PreparedStatement {
  return db
    .prepare(
      `insert or ignore into chain_events (chain_id, transaction_hash, log_index, applied_by, block_number, created_at)
       select ?, ?, ?, ?, ?, ? where ${onlyIf?.sql ?? "1"}`,
    )
    .bind(guard.chainId, guard.transactionHash, guard.logIndex, guard.token, guard.blockNumber, Date.now(), ...(onlyIf?.params ?? []));
}

export function newLogGuard(chainId: number, log: { transactionHash: string; logIndex: number; blockNumber: number }): LogGuard {
  return { chainId, transactionHash: log.transactionHash, logIndex: log.logIndex, blockNumber: log.blockNumber, token: crypto.randomUUID() };
}

export interface AssetFields {
  name: string | null;
  description: string | null;
  imageUrl: string | null;
  animationUrl: string | null;
  tokenUri: string | null;
}

/** ERC-721 Transfer: ownership moves; a mint also creates the asset row if it is new. */
export function erc721TransferStatements(
  db: D1Database,
  guard: LogGuard,
  transfer: Erc721Transfer,
  asset: AssetFields | null,
): D1PreparedStatement[] {
  const now = Date.now();
  const key = [guard.chainId, transfer.contract, transfer.tokenId];
  const statements = [
    db
      .prepare(`delete from ownerships where chain_id = ? and contract_address = ? and token_id = ? and ${GUARD_SQL}`)
      .bind(...key, ...guardParams(guard)),
  ];
  if (transfer.to !== "0x0000000000000000000000000000000000000000") {
    statements.push(
      db
        .prepare(
          `insert into ownerships (chain_id, contract_address, token_id, owner_address, balance, updated_at)
           select ?, ?, ?, ?, '1', ? where ${GUARD_SQL}
           on conflict do update set balance = '1', updated_at = excluded.updated_at`,
        )
        .bind(...key, transfer.to, now, ...guardParams(guard)),
    );
  }
  if (asset) {
    statements.push(
      db
        .prepare(
          `insert into assets (id, chain_id, contract_address, token_id, collection_id, schema, name, name_lower, description,
                               image_url, animation_url, token_uri, is_verified, created_at, updated_at)
           select ?, c.chain_id, c.contract_address, ?, c.id, c.schema, ?, ?, ?, ?, ?, ?, c.is_verified, ?, ?
           from collections c
           where c.chain_id = ? and c.contract_address = ? and ${GUARD_SQL}
           on conflict (chain_id, contract_address, token_id) do nothing`,
        )
        .bind(
          crypto.randomUUID(),
          transfer.tokenId,
          asset.name,
          asset.name?.toLowerCase() ?? null,
          asset.description,
          asset.imageUrl,
          asset.animationUrl,
          asset.tokenUri,
          now,
          now,
          guard.chainId,
          transfer.contract,
          ...guardParams(guard),
        ),
    );
  }
  return statements;
}
