// The dataset of `npm run bench:reads`: collections, assets, ownerships, listings and one project
// with an API key, generated from a fixed seed so every run reads the same shape of data.
// Rows are yielded table by table in column order; bench-reads-seed.mjs turns them into SQL.
import { createHash, randomBytes } from "node:crypto";

// apiKeys: requests rotate over this many keys of the one project. The service limits each key to
// 3,000 requests a minute (wrangler.toml [[ratelimits]]); the benchmark must never hit that
// limit, yet the limiter still runs on every request as it does in production.
export const DEFAULTS = { assets: 100_000, collections: 200, owners: 5_000, listedShare: 0.3, verifiedShare: 0.1, apiKeys: 128 };
const DAY = 86_400_000;
const ZERO_ADDRESS = `0x${"0".repeat(40)}`;
const CHAIN_IDS = [1868, 1946];
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Words the collection names are made of; `search` picks from the same lists, so a term matches
// a realistic share of names (one or a few collections), never all or none.
const ADJECTIVES = ["Cosmic", "Pixel", "Neon", "Lazy", "Golden", "Crypto", "Bored", "Mutant", "Silent", "Lucky", "Wild", "Tiny", "Ancient", "Electric", "Frozen", "Hidden", "Royal", "Savage", "Velvet", "Misty", "Solar", "Lunar", "Rusty", "Glitch", "Paper", "Jade", "Crimson", "Azure", "Shadow", "Happy"];
const NOUNS = ["Otters", "Samurai", "Apes", "Punks", "Foxes", "Robots", "Wizards", "Whales", "Koalas", "Dragons", "Ghosts", "Knights", "Owls", "Pandas", "Cats", "Frogs", "Toads", "Bears", "Wolves", "Penguins", "Sharks", "Tigers", "Monks", "Pirates", "Aliens"];
export const SEARCH_TERMS = ["otter", "samurai", "neon", "golden", "dragon", "pixel", "ghost", "wizard", "frog", "punk", "robot", "lucky", "royal", "shadow"];

/** mulberry32: small, fast and deterministic, which is all a synthetic dataset needs. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function createDataset(options = {}) {
  const cfg = { ...DEFAULTS, ...options };
  const rand = prng(cfg.seed ?? 0x6d696e74);
  const int = (n) => Math.floor(rand() * n);
  const hex = (chars) => {
    let out = "";
    while (out.length < chars) out += Math.floor(rand() * 0x100000000).toString(16).padStart(8, "0");
    return out.slice(0, chars);
  };
  const uuid = () => {
    const h = hex(32);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${"89ab"[int(4)]}${h.slice(17, 20)}-${h.slice(20)}`;
  };
  const address = () => `0x${hex(40)}`;
  const now = cfg.now ?? Date.now();

  // Collection sizes follow a power law (a few big collections, a long tail), as on real
  // marketplaces; the contractAddress filter then sees both.
  const weights = Array.from({ length: cfg.collections }, (_, i) => 1 / (i + 1) ** 0.8);
  const total = weights.reduce((a, b) => a + b, 0);
  const sizes = weights.map((w) => Math.max(20, Math.floor((w / total) * cfg.assets)));
  sizes[0] += cfg.assets - sizes.reduce((a, b) => a + b, 0);

  const names = new Set();
  const collections = sizes.map((size, i) => {
    let name;
    do name = `${ADJECTIVES[int(ADJECTIVES.length)]} ${NOUNS[int(NOUNS.length)]}`;
    while (names.has(name));
    names.add(name);
    const createdAt = now - 365 * DAY + int(300 * DAY);
    return {
      id: uuid(),
      slug: name.toLowerCase().replace(/\s+/g, "-"),
      chainId: CHAIN_IDS[i % 4 === 3 ? 1 : 0], // a quarter on the second chain, so chainId filters
      contractAddress: address(),
      name,
      isVerified: rand() < cfg.verifiedShare,
      size,
      createdAt,
      // The mint runs over up to 60 days after the collection was created.
      mintSpan: Math.min(now - createdAt - DAY, DAY + int(60 * DAY)),
      floorWei: BigInt(1 + int(2000)) * 10n ** 15n, // 0.001 .. 2 ETH
    };
  });
  // Owners: a few whales hold many tokens, most wallets hold one or two.
  const owners = Array.from({ length: cfg.owners }, address);
  const pickOwner = () => owners[Math.floor(cfg.owners * rand() ** 2.5)];

  const project = { id: uuid(), walletAddress: address(), createdAt: now - 400 * DAY };
  // `ak_` + 40 base62 characters, rejection-sampled like the service's own keys; fresh every run.
  const apiKeys = Array.from({ length: cfg.apiKeys }, () => {
    let key = "ak_";
    while (key.length < 43) for (const byte of randomBytes(64)) if (byte < 248 && key.length < 43) key += BASE62[byte % 62];
    return key;
  });

  const counts = { projects: 1, api_keys: apiKeys.length, collections: collections.length, assets: 0, ownerships: 0, orders: 0, activeOrders: 0, listedAssets: 0 };
  const samples = { tokens: [], owners: [...new Set(Array.from({ length: 500 }, pickOwner))], contracts: collections.map((c) => c.contractAddress) };

  function order(c, tokenId, owner, status, createdAt, priceWei) {
    const orderHash = `0x${hex(64)}`;
    const startTime = createdAt;
    // Active listings run 7..90 days; 1 % of them ended a moment ago and await the expiry sweep.
    const endTime = status === "active" ? (rand() < 0.01 ? now - int(DAY) : now + (7 + int(83)) * DAY) : startTime + 7 * DAY;
    const fee = priceWei / 40n;
    const parameters = JSON.stringify({
      offerer: owner,
      zone: ZERO_ADDRESS,
      offer: [{ itemType: 2, token: c.contractAddress, identifierOrCriteria: String(tokenId), startAmount: "1", endAmount: "1" }],
      consideration: [
        { itemType: 0, token: ZERO_ADDRESS, identifierOrCriteria: "0", startAmount: String(priceWei - fee), endAmount: String(priceWei - fee), recipient: owner },
        { itemType: 0, token: ZERO_ADDRESS, identifierOrCriteria: "0", startAmount: String(fee), endAmount: String(fee), recipient: `0x${hex(40)}` },
      ],
      orderType: 0,
      startTime: String(Math.floor(startTime / 1000)),
      endTime: String(Math.floor(endTime / 1000)),
      zoneHash: `0x${"0".repeat(64)}`,
      salt: `0x${hex(64)}`,
      conduitKey: `0x${"0".repeat(64)}`,
      counter: "0",
    });
    counts.orders++;
    // Column order of migrations/0000_init.sql's orders table.
    return [orderHash, c.chainId, status, owner, c.contractAddress, String(tokenId), "1", String(priceWei), `0${String(priceWei).padStart(78, "0")}`, null, "ETH", startTime, endTime, "0", parameters, `0x${hex(130)}`, rand() < 0.5 ? project.id : null, status === "filled" ? `0x${hex(64)}` : null, createdAt, createdAt];
  }

  function* assetsOf(c) {
    const assets = [];
    const ownerships = [];
    const orders = [];
    for (let tokenId = 1; tokenId <= c.size; tokenId++) {
      const createdAt = c.createdAt + Math.floor((c.mintSpan * tokenId) / c.size) + int(1000);
      const owner = pickOwner();
      const name = `${c.name} #${tokenId}`;
      let best = null;
      if (rand() < cfg.listedShare) {
        counts.listedAssets++;
        // Most listed tokens have one listing, some several (relisted cheaper, several sellers' old orders).
        const roll = rand();
        const listings = roll < 0.75 ? 1 : roll < 0.9 ? 2 : roll < 0.97 ? 3 : 4 + int(2);
        for (let k = 0; k < listings; k++) {
          const priceWei = (c.floorWei * BigInt(100 + int(400))) / 100n;
          const row = order(c, tokenId, owner, "active", Math.max(createdAt, now - int(30 * DAY)), priceWei);
          counts.activeOrders++;
          orders.push(row);
          if (!best || priceWei < best.price) best = { price: priceWei, hash: row[0], sort: row[8] };
        }
      }
      // Past orders (filled, cancelled, expired, seller moved the token) that only sit in the table.
      if (rand() < 0.1) orders.push(order(c, tokenId, owner, ["filled", "cancelled", "expired", "inactive"][int(4)], createdAt + int(10 * DAY), c.floorWei));
      assets.push([
        uuid(), c.chainId, c.contractAddress, String(tokenId), c.id, "ERC721", name, name.toLowerCase(),
        `${name} from ${c.name}, a collection of ${c.size.toLocaleString("en-US")} hand-drawn characters living on chain ${c.chainId}.`,
        `https://cdn.mintyard.xyz/${c.slug}/${tokenId}.png`, rand() < 0.05 ? `https://cdn.mintyard.xyz/${c.slug}/${tokenId}.mp4` : null,
        `https://api.mintyard.xyz/v1/metadata/${c.chainId}/${c.contractAddress}/${tokenId}`,
        c.isVerified ? 1 : 0, best?.sort ?? null, best?.hash ?? null, createdAt, createdAt,
      ]);
      ownerships.push([c.chainId, c.contractAddress, String(tokenId), owner, "1", createdAt]);
      if (rand() < 2000 / cfg.assets) samples.tokens.push([c.chainId, c.contractAddress, String(tokenId)]);
    }
    counts.assets += assets.length;
    counts.ownerships += ownerships.length;
    yield ["assets", assets];
    yield ["ownerships", ownerships];
    yield ["orders", orders];
  }

  /** [table, rows[]] chunks; every row's values are in the table's column order (COLUMNS). */
  function* rows() {
    yield ["projects", [[project.id, "Bench project", 1, project.walletAddress, project.createdAt, project.createdAt]]];
    yield ["api_keys", apiKeys.map((key) => [uuid(), project.id, "api", createHash("sha256").update(key).digest("hex"), key.slice(0, 9), project.createdAt, null])];
    yield ["collections", collections.map((c) => [c.id, c.slug, c.chainId, c.contractAddress, "ERC721", c.name, `https://cdn.mintyard.xyz/${c.slug}/cover.png`, `${c.name}: ${c.size} unique tokens.`, c.isVerified ? 1 : 0, null, 1, c.createdAt, c.createdAt])];
    for (const c of collections) yield* assetsOf(c);
  }

  // `size`: the asset count, known before rows() has run (counts fill in as it runs).
  return { rows, size: sizes.reduce((a, b) => a + b, 0), apiKeys, counts, samples, collections, now, chainIds: CHAIN_IDS, owners: cfg.owners };
}

export const COLUMNS = {
  projects: ["id", "name", "wallet_index", "wallet_address", "created_at", "updated_at"],
  api_keys: ["id", "project_id", "kind", "key_hash", "prefix", "created_at", "revoked_at"],
  collections: ["id", "slug", "chain_id", "contract_address", "schema", "name", "image_url", "description", "is_verified", "drop_id", "tracked", "created_at", "updated_at"],
  assets: ["id", "chain_id", "contract_address", "token_id", "collection_id", "schema", "name", "name_lower", "description", "image_url", "animation_url", "token_uri", "is_verified", "best_price_sort", "best_order_hash", "created_at", "updated_at"],
  ownerships: ["chain_id", "contract_address", "token_id", "owner_address", "balance", "updated_at"],
  orders: ["order_hash", "chain_id", "status", "offerer", "contract_address", "token_id", "quantity", "unit_price", "price_sort", "currency_address", "price_symbol", "start_time", "end_time", "counter", "parameters", "signature", "project_id", "fill_transaction_hash", "created_at", "updated_at"],
};
