// Findings and recommendations under the reads tables. The reasoning was written by hand from
// full runs (plans, the concurrency-1 and direct-workerd columns, a CPU profile of workerd);
// every figure quoted is filled in from the current run, so the text never goes stale on numbers.
const f = (v, digits) => (Number.isFinite(v) ? v.toFixed(digits ?? (v < 10 ? 2 : 1)) : "?");

export function analysis(rows, whatIf) {
  const row = (name) => rows.find((r) => r.testCase.name === name) ?? {};
  const probe = row("probe: auth + validation only (400, no D1 query)");
  const asset = row("asset by chain/contract/token");
  const plain = row("explore: no filter");
  const chain = row("explore: chainId");
  const search = row("explore: search");
  const priceAsc = row("explore: sortBy=price:ASC");
  const combined = row("explore: chainId + isVerified + hasListings, price:ASC");
  const deep = rows.filter((r) => r.testCase.name.startsWith("explore: page=")).at(-1) ?? {};
  const cpu = (r) => (r.cpu ? r.cpu.workerd + r.cpu.wrangler : NaN);
  const fix = (name) => whatIf.find((w) => w.name.startsWith(name)) ?? { before: {}, after: {} };

  return `### Findings

1. **At concurrency 16 on 2 cores the latency targets are throughput targets.** In a closed loop
   the mean latency is about 16 ÷ throughput, so p95 < 10 ms needs well over 1,600 req/s: at most
   ~1.2 ms of CPU per request for the service, wrangler and the client together. The cheapest
   request measured, the probe (auth, rate limiter, validation, no D1 query), already costs
   ${f(cpu(probe))} ms of CPU under wrangler dev (${f(probe.loaded?.rps, 0)} req/s, p95
   ${f(probe.loaded?.p95)} ms); a single-asset read ${f(cpu(asset))} ms (${f(asset.loaded?.rps, 0)} req/s).
   No case can meet the concurrency-16 targets under wrangler dev on this machine, whatever the SQL
   does, and the load average shows the cores were shared with other work besides. At
   concurrency 1 the single asset takes ${f(asset.sequential?.p50)} ms (p50) under wrangler dev,
   ${f(asset.direct?.sequential.p50)} ms on workerd directly and ${f(asset.floor?.p50, 3)} ms in SQLite.
2. **wrangler dev's own share.** The same bundle served straight from workerd (Miniflare, no
   ProxyWorker in front) answers the probe in ${f(probe.direct?.sequential.p50)} ms instead of
   ${f(probe.sequential?.p50)} ms at concurrency 1, and explore without filter in
   ${f(plain.direct?.sequential.p50)} ms instead of ${f(plain.sequential?.p50)} ms. wrangler's Node
   process burns ${f(probe.cpu?.wrangler)} ms of CPU per request without a D1 query and
   ${f(asset.cpu?.wrangler)} ms with one: each request's log line goes through Node (and is appended
   to wrangler's debug log file), and wrangler dev keeps its DevTools inspector attached, which
   reports every subrequest, each D1 query included, to Node too. None of this runs in production.
3. **Worker and local D1 overhead.** Even on workerd directly a single asset costs
   ${f(asset.direct?.cpu?.workerd)} ms of workerd CPU for a ${f(asset.floor?.p50, 3)} ms query, and
   explore without filter ${f(plain.direct?.cpu?.workerd)} ms for ${f(plain.floor?.p50)} ms of SQL. Per
   request the Worker resolves the key through KV (in Miniflare a Durable Object with its own
   SQLite), calls the rate limiter, sends one or two D1 queries (each a JSON round trip to the D1
   Durable Object), maps the joined rows with drizzle and serialises JSON. A CPU profile of the
   direct runner on explore (taken once, by hand) put about a third of workerd's CPU in the KV
   simulator, a third in the D1 simulator and under a fifth in the Worker's own code. The page
   query also selects every column of \`orders\` and \`collections\`, including the full Seaport
   \`parameters\` JSON (~1 KB) and the signature that the views never return: a page of 20 listed
   assets is about 50 KB of rows, 14.5 KB with only the columns the views use (measured once on
   this dataset).
4. **Where SQL itself misses** (see the plans):
   - \`price:ASC\` orders by \`best_price_sort is null\` first, which no index serves: every page sorts
     all assets in a temporary B-tree (SQL p50 ${f(priceAsc.floor?.p50)} ms).
   - The combined filter sorts the chain's listed assets the same way and its count reads
     \`is_verified\` from the table for each of them (SQL p50 ${f(combined.floor?.p50)} ms).
   - \`search\` is \`name_lower LIKE '%term%'\`: the count scans the whole table (SQL count p50
     ${f(search.floor?.statements?.[0]?.p50)} ms); the page is quick for common words and scans the
     whole created_at index for rare ones.
   - Deep pages: OFFSET reads every skipped row and does both LEFT JOIN lookups before dropping it
     (${deep.testCase?.name ?? "deep page"}: SQL p50 ${f(deep.floor?.p50)} ms).
   - Counts cost one index entry per matching row: \`chainId\` (a fifth to four fifths of the
     table) spends ${f(chain.floor?.statements?.[0]?.p50)} ms of its ${f(chain.floor?.p50)} ms (p50) counting.

### Recommendations (src/ is not changed by the benchmark)

1. **price:ASC**: page over listed assets with \`best_price_sort is not null order by
   best_price_sort, created_at desc, id desc\` (the price indexes), and once the offset passes
   the listed count continue with \`+best_price_sort is null order by created_at desc, id desc\`
   at \`offset − listed\` (the listed count is a covering-index count). Page 1:
   ${f(fix("price:ASC, page 1").before.p50)} → ${f(fix("price:ASC, page 1").after.p50)} ms.
   With \`hasListings=true\` simply drop the constant \`is null\` term:
   ${f(fix("chainId + isVerified + hasListings, price:ASC: page").before.p50)} →
   ${f(fix("chainId + isVerified + hasListings, price:ASC: page").after.p50)} ms.
2. **Index \`(chain_id, is_verified, best_price_sort)\`** for the combined filters: count
   ${f(fix("chainId + isVerified + hasListings: count").before.p50)} →
   ${f(fix("chainId + isVerified + hasListings: count").after.p50)} ms.
3. **Deep pages**: make the created_at indexes end in \`id\` (\`(created_at, id)\`, and likewise
   for the chain/contract/collection/verified variants) so the sort needs no temporary B-tree,
   and fetch the page's ids first: \`where id in (select id from assets … order by created_at
   desc, id desc limit ? offset ?)\`, then join the 20 rows:
   ${f(fix("page=").before.p50)} → ${f(fix("page=").after.p50)} ms. Keyset pagination (a cursor on
   \`(created_at, id)\`) would make every page cost the same.
4. **Search**: an FTS5 external-content table with the trigram tokenizer on \`name_lower\`
   (kept by triggers; it works in local D1) answers substring matches of 3+ characters from an
   index: count ${f(fix("search: count").before.p50)} → ${f(fix("search: count").after.p50)} ms. Keep
   LIKE for 1–2 character terms.
5. **Counts**: a broad filter's exact total costs one index entry per matching row on every
   page. Cache totals per normalised filter for a few seconds (isolate memory or KV), or keep
   per-chain / per-collection counters, or cap the count (\`10,000+\`).
6. **Less data per row**: select only the columns \`assetView\` uses (not \`orders.parameters\`,
   \`signature\`, timestamps), about 3.5× less for D1 to serialise and the Worker to parse.
7. **Auth**: cache resolved keys in isolate memory for a few seconds in front of KV; it saves a
   KV read on every request (locally as much as a D1 query), at the price of revocation taking
   effect up to that many seconds later.
8. **Judging locally**: read the latency targets at concurrency 1, or on the direct-workerd
   runner, or on a machine with cores to spare; under wrangler dev at concurrency 16 on 2 cores
   they measure wrangler dev's CPU rather than the service.`;
}
