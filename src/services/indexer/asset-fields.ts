// Asset rows for tokens the indexer sees minted outside the service (public claims on a drop,
// mints in registered collections), or moving without D1 having a row for them (minted before a
// registered collection's fromBlock; decision 54). A drop's token gets the drop's default metadata and its
// tokenURI (baseUri + id), both known in D1; a registered collection's token gets its
// tokenURI()/uri() from the chain, within a per-run budget, and no name or image (the service
// does not fetch off-chain metadata).
import { batchOverJsonLists } from "../../db/json-list";
import { tokenUriOf } from "../../chain/collection-probe";
import type { ChainConfig } from "../../lib/chains";
import type { AssetFields } from "../chain-events/apply";

export interface IndexedCollection {
  id: string;
  contractAddress: string;
  schema: "ERC721" | "ERC1155";
  dropId: string | null;
}

const URI_LOOKUPS_IN_FLIGHT = 6;

export type MintKey = `${string}:${string}`;
export const mintKey = (contract: string, tokenId: string): MintKey => `${contract}:${tokenId}`;

interface DropDefaults {
  baseUri: string;
  name: string | null;
  description: string | null;
  image: string | null;
  animationUrl: string | null;
}

async function dropDefaults(db: D1Database, dropId: string): Promise<DropDefaults | null> {
  return db
    .prepare(
      `select d.base_uri as baseUri, m.name, m.description, m.image, m.animation_url as animationUrl
       from drops d left join token_metadata m on m.chain_id = d.chain_id and m.contract_address = d.contract_address and m.token_key = 'default'
       where d.id = ?`,
    )
    .bind(dropId)
    .first<DropDefaults>();
}

/** The tokens among `tokens` that have an asset row, with the row's token URI (each once). */
export async function assetRows(db: D1Database, chainId: number, tokens: { contract: string; tokenId: string }[]): Promise<Map<MintKey, string | null>> {
  const distinct = new Map(tokens.map((token) => [mintKey(token.contract, token.tokenId), [token.contract, token.tokenId]]));
  // JSON list parameters: D1 binds at most 100 values and 1 MB per string (db/json-list.ts).
  const statement = db.prepare(
    // CROSS JOIN keeps the list outside: without statistics SQLite would walk the chain's assets and scan the list for each.
    `select a.contract_address, a.token_id, a.token_uri from json_each(?2) t
     cross join assets a on a.chain_id = ?1 and a.contract_address = t.value ->> '$[0]' and a.token_id = t.value ->> '$[1]'`,
  );
  const [rows = []] = await batchOverJsonLists<{ contract_address: string; token_id: string; token_uri: string | null }>(db, [...distinct.values()], (list) => [
    statement.bind(chainId, list),
  ]);
  return new Map(rows.map((row) => [mintKey(row.contract_address, row.token_id), row.token_uri]));
}

/** `existing`: the tokens' asset rows as `assetRows` reads them (the caller has read them already). */
export async function assetFieldsFor(
  db: D1Database,
  chain: ChainConfig,
  mints: { contract: string; tokenId: string }[],
  collections: Map<string, IndexedCollection>,
  budget: { tokenUriLookups: number },
  existing: ReadonlyMap<MintKey, string | null>,
): Promise<Map<MintKey, AssetFields>> {
  const fields = new Map<MintKey, AssetFields>();
  const defaults = new Map<string, DropDefaults | null>();
  const candidates: { key: MintKey; contract: string; schema: "ERC721" | "ERC1155"; tokenId: string }[] = [];
  for (const { contract, tokenId } of mints) {
    const key = mintKey(contract, tokenId);
    const collection = collections.get(contract);
    if (!collection || fields.has(key)) continue;
    if (collection.dropId) {
      if (!defaults.has(collection.dropId)) defaults.set(collection.dropId, await dropDefaults(db, collection.dropId));
      const drop = defaults.get(collection.dropId);
      fields.set(key, {
        name: drop?.name ?? null,
        description: drop?.description ?? null,
        imageUrl: drop?.image ?? null,
        animationUrl: drop?.animationUrl ?? null,
        tokenUri: drop ? `${drop.baseUri}${tokenId}` : null,
      });
    } else {
      fields.set(key, { name: null, description: null, imageUrl: null, animationUrl: null, tokenUri: null });
      candidates.push({ key, contract, schema: collection.schema, tokenId });
    }
  }
  // An ERC-1155 id minted again (more supply) has its row and URI already: its insert changes
  // nothing, so its lookup would only spend the run's budget that new ids need. (An ERC-721 token
  // minted again was burned first, and the burn deletes its row: it is looked up.)
  const lookups = candidates.filter((token) => !(token.schema === "ERC1155" && existing.get(token.key))).slice(0, Math.max(0, budget.tokenUriLookups));
  budget.tokenUriLookups -= lookups.length;
  // A Worker keeps six connections open at once and queues the rest, and the queue counts against
  // each call's timeout: at most six lookups in flight.
  for (let i = 0; i < lookups.length; i += URI_LOOKUPS_IN_FLIGHT) {
    const chunk = lookups.slice(i, i + URI_LOOKUPS_IN_FLIGHT);
    const uris = await Promise.all(chunk.map((l) => tokenUriOf(chain.rpcUrl, l.contract, l.schema, l.tokenId)));
    chunk.forEach((lookup, j) => (fields.get(lookup.key)!.tokenUri = uris[j] ?? null));
  }
  return fields;
}
