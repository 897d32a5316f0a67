// D1 takes at most 100 bound parameters per statement. Lists that grow with the data (a page of
// 100 assets, every collection that sold in a period) are bound as one JSON parameter.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { seedCollection } from "../fixtures/seed";
import { call } from "../helpers/http";
import { createTestProject, type TestProject } from "../helpers/projects";

let reader: TestProject;

beforeAll(async () => {
  reader = await createTestProject("Long lists");
});

describe("long lists", () => {
  it("a price-sorted explore page of 100 assets joins all 100", async () => {
    const collection = await seedCollection({ name: "Hundred and ten" });
    // Unlisted assets: price:DESC reaches them through its third range, the ids-then-joins path.
    await env.DB.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < 110)
       insert into assets (id, chain_id, contract_address, token_id, collection_id, schema, name, name_lower, created_at, updated_at)
       select lower(hex(randomblob(16))), 1868, ?1, cast(i as text), ?2, 'ERC721', 'Item ' || i, 'item ' || i, 1700000000000 + i, 1700000000000 + i from n`,
    )
      .bind(collection.contractAddress, collection.id)
      .run();

    const { status, body } = await call(`/v1/assets/explore?contractAddress=${collection.contractAddress}&sortBy=price:DESC&limit=100`, { apiKey: reader.apiKey });

    expect(status).toBe(200);
    expect(body.data).toHaveLength(100);
    expect(body.data[0].tokenId).toBe("110");
    expect(body.data[99].tokenId).toBe("11");
  });

  it("trending covers every collection that sold in the period, beyond 100 of them", async () => {
    const now = Date.now();
    // 120 collections, collection i selling once for i gwei in the last hour.
    await env.DB.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < 120)
       insert into collections (id, slug, chain_id, contract_address, schema, name, is_verified, tracked, created_at, updated_at)
       select 'busy-' || i, 'busy-' || i, 1868, '0x' || printf('%040x', 900000 + i), 'ERC721', 'Busy ' || i, 0, 1, ?1, ?1 from n`,
    )
      .bind(now)
      .run();
    await env.DB.prepare(
      `with recursive n(i) as (select 1 union all select i + 1 from n where i < 120)
       insert into sales (id, chain_id, collection_id, contract_address, token_id, quantity, seller, buyer, price, price_gwei, price_sub_gwei,
         transaction_hash, log_index, block_number, sold_at)
       select 'sale-' || i, 1868, 'busy-' || i, '0x' || printf('%040x', 900000 + i), '1', '1', '0x01', '0x02', cast(i * 1000000000 as text), i, 0,
         '0x' || printf('%064x', i), 0, 1, ?1 from n`,
    )
      .bind(now - 60_000)
      .run();

    const { status, body } = await call("/v1/collections/trending?period=24h&limit=100", { apiKey: reader.apiKey });

    expect(status).toBe(200);
    expect(body.data).toHaveLength(100);
    expect(body.data[0].collection.name).toBe("Busy 120");
    expect(body.data[0].volume).toBe(String(120n * 1_000_000_000n));
  });
});
