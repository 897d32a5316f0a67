// Which contracts have a row in `collections`: the receipt handler's transfers and the indexer's
// sales attach to one only if it exists.
import { IsolateCache } from "../../lib/isolate-cache";

// Per isolate: a collection is only ever removed when its drop's deployment failed (no contract,
// so no logs), while one registered a moment ago must be seen at once, so only "known" is
// cached, never "unknown".
const knownCollectionCache = new IsolateCache<true>(60_000);
const CONTRACTS_PER_QUERY = 99; // plus the chain id: D1 allows 100 bound parameters

/** The contracts among `contracts` (lower-case) that have a collection row on the chain. */
export async function knownCollections(db: D1Database, chainId: number, contracts: Iterable<string>): Promise<Set<string>> {
  const distinct = [...new Set(contracts)];
  const known = new Set(distinct.filter((contract) => knownCollectionCache.get(`${chainId}:${contract}`)));
  const unsure = distinct.filter((contract) => !known.has(contract));
  for (let i = 0; i < unsure.length; i += CONTRACTS_PER_QUERY) {
    const chunk = unsure.slice(i, i + CONTRACTS_PER_QUERY);
    const { results } = await db
      .prepare(`select contract_address from collections where chain_id = ? and contract_address in (${chunk.map(() => "?").join(", ")})`)
      .bind(chainId, ...chunk)
      .all<{ contract_address: string }>();
    for (const { contract_address: contract } of results) {
      known.add(contract);
      knownCollectionCache.set(`${chainId}:${contract}`, true);
    }
  }
  return known;
}
