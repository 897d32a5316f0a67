// D1 schema. docs/storage.md documents every table, column family and index.
// Conventions: ids are UUID text; addresses are stored lower-case (so equality and indexes
// are case-free) and checksummed on output; token ids and token amounts are decimal text
// (uint256 does not fit SQLite's 64-bit integers); times are integer milliseconds.
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const createdAt = () =>
  integer("created_at", { mode: "timestamp_ms" })
    .notNull()
    .default(sql`(cast(unixepoch('subsec') * 1000 as integer))`);
const updatedAt = () =>
  integer("updated_at", { mode: "timestamp_ms" })
    .notNull()
    .default(sql`(cast(unixepoch('subsec') * 1000 as integer))`);

export const projects = sqliteTable(
  "projects",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    /** HD index of the project wallet: m/44'/60'/0'/0/{walletIndex}. */
    walletIndex: integer("wallet_index").notNull(),
    walletAddress: text("wallet_address").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("projects_wallet_index_uq").on(t.walletIndex), index("projects_created_at_idx").on(t.createdAt)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id),
    kind: text("kind", { enum: ["api", "secret"] }).notNull(),
    /** SHA-256 of the plain key, lower-case hex. The plain key is never stored. */
    keyHash: text("key_hash").notNull(),
    /** First characters of the plain key (e.g. `sk_3fA9`), safe to show in lists. */
    prefix: text("prefix").notNull(),
    createdAt: createdAt(),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
    /** The secret key whose dashboard session created this key; null: the admin token (decision 110). */
    createdByKeyId: text("created_by_key_id"),
  },
  (t) => [
    uniqueIndex("api_keys_key_hash_uq").on(t.keyHash),
    index("api_keys_project_idx").on(t.projectId),
    // A key's descendants, for revoking them with it.
    index("api_keys_created_by_idx").on(t.createdByKeyId),
  ],
);

export const drops = sqliteTable(
  "drops",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id),
    chainId: integer("chain_id").notNull(),
    contractAddress: text("contract_address").notNull(),
    /** CREATE2 salt given to the DropFactory. */
    salt: text("salt").notNull(),
    name: text("name").notNull(),
    symbol: text("symbol").notNull(),
    description: text("description").notNull().default(""),
    ownerAddress: text("owner_address").notNull(),
    /** 32-byte hex secret; keccak256(blindboxKey) is the on-chain provenance hash. */
    blindboxKey: text("blindbox_key").notNull(),
    provenanceHash: text("provenance_hash").notNull(),
    imageUrl: text("image_url").notNull().default(""),
    baseUri: text("base_uri").notNull(),
    mode: text("mode", { enum: ["standard", "badge"] }).notNull(),
    metadataStorageType: text("metadata_storage_type", { enum: ["s3", "metadata-api", "self-hosted"] }).notNull(),
    metadataRepoId: text("metadata_repo_id"),
    creatorFeeAddress: text("creator_fee_address").notNull(),
    creatorFeeBps: integer("creator_fee_bps").notNull(),
    /** null = unlimited. */
    totalSupply: integer("total_supply"),
    /** Price per token in the currency's smallest unit. */
    unitPrice: text("unit_price").notNull(),
    /** null = native currency. */
    currencyAddress: text("currency_address"),
    startTime: integer("start_time", { mode: "timestamp_ms" }),
    /** null = unlimited. */
    limitPerWallet: integer("limit_per_wallet"),
    merkleRoot: text("merkle_root"),
    /** Next token id the project wallet's mints will produce (ids start at 1). */
    nextTokenId: integer("next_token_id").notNull().default(1),
    status: text("status", { enum: ["pending", "deployed", "failed"] }).notNull().default("pending"),
    deployTransactionId: text("deploy_transaction_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("drops_chain_contract_uq").on(t.chainId, t.contractAddress),
    index("drops_project_created_idx").on(t.projectId, t.createdAt),
    index("drops_chain_created_idx").on(t.chainId, t.createdAt),
    index("drops_created_idx").on(t.createdAt),
    // GET /v1/drops?contractAddress= without a chain (drops_chain_contract_uq starts with the chain).
    index("drops_contract_idx").on(t.contractAddress),
  ],
);

/**
 * A drop's whitelist as StandardMerkleTree.dump() JSON, when it fits a D1 row (larger trees are
 * in R2). Its own table: up to 900 KB that only allowlist lookups read, kept out of the drop row,
 * which every claim reads and every confirmed claim updates (SQLite rewrites a whole row).
 */
export const dropAllowlists = sqliteTable("drop_allowlists", {
  dropId: text("drop_id")
    .primaryKey()
    .references(() => drops.id),
  tree: text("tree").notNull(),
  createdAt: createdAt(),
});

export const collections = sqliteTable(
  "collections",
  {
    id: text("id").primaryKey(),
    slug: text("slug").notNull(),
    chainId: integer("chain_id").notNull(),
    contractAddress: text("contract_address").notNull(),
    schema: text("schema", { enum: ["ERC721", "ERC1155"] }).notNull(),
    name: text("name"),
    imageUrl: text("image_url"),
    description: text("description"),
    isVerified: integer("is_verified", { mode: "boolean" }).notNull().default(false),
    dropId: text("drop_id"),
    /** The indexer reads this contract's transfer logs. */
    tracked: integer("tracked", { mode: "boolean" }).notNull().default(true),
    /**
     * Next block of this collection's own catch-up read (registered with `fromBlock` before the
     * chain cursor); null once it is read with the chain cursor like every other collection.
     */
    backfillNextBlock: integer("backfill_next_block"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("collections_slug_uq").on(t.slug),
    uniqueIndex("collections_chain_contract_uq").on(t.chainId, t.contractAddress),
    index("collections_verified_idx").on(t.isVerified),
  ],
);

export const assets = sqliteTable(
  "assets",
  {
    id: text("id").primaryKey(),
    chainId: integer("chain_id").notNull(),
    contractAddress: text("contract_address").notNull(),
    tokenId: text("token_id").notNull(),
    collectionId: text("collection_id").notNull(),
    schema: text("schema", { enum: ["ERC721", "ERC1155"] }).notNull(),
    name: text("name"),
    /** lower(name), so the case-insensitive search can use LIKE on plain ASCII and Unicode alike. */
    nameLower: text("name_lower"),
    description: text("description"),
    imageUrl: text("image_url"),
    animationUrl: text("animation_url"),
    tokenUri: text("token_uri"),
    isVerified: integer("is_verified", { mode: "boolean" }).notNull().default(false),
    /**
     * Cheapest active listing, kept by the order service so filters and price sorts need no
     * join: its price zero-padded to 78 digits (text order = numeric order) and its hash.
     */
    bestPriceSort: text("best_price_sort"),
    bestOrderHash: text("best_order_hash"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("assets_chain_contract_token_uq").on(t.chainId, t.contractAddress, t.tokenId),
    // Every createdAt sort ends in id (the tie-breaker), so pages need no temporary B-tree.
    index("assets_created_id_idx").on(t.createdAt, t.id),
    index("assets_chain_created_id_idx").on(t.chainId, t.createdAt, t.id),
    index("assets_contract_created_id_idx").on(t.contractAddress, t.createdAt, t.id),
    index("assets_collection_created_id_idx").on(t.collectionId, t.createdAt, t.id),
    index("assets_verified_created_id_idx").on(t.isVerified, t.createdAt, t.id),
    index("assets_best_price_idx").on(t.bestPriceSort),
    index("assets_chain_best_price_idx").on(t.chainId, t.bestPriceSort),
    index("assets_chain_verified_best_price_idx").on(t.chainId, t.isVerified, t.bestPriceSort),
    index("assets_contract_best_price_idx").on(t.contractAddress, t.bestPriceSort),
  ],
);

export const ownerships = sqliteTable(
  "ownerships",
  {
    chainId: integer("chain_id").notNull(),
    contractAddress: text("contract_address").notNull(),
    tokenId: text("token_id").notNull(),
    ownerAddress: text("owner_address").notNull(),
    /** 1 for ERC721; the ERC1155 balance otherwise (decimal text). */
    balance: text("balance").notNull(),
    /**
     * ERC721: the chain position (block, log index) of the Transfer that made this the owner, so
     * an older Transfer applied later (the indexer catching up on a block a receipt already
     * passed) cannot overwrite it. Null for ERC1155 balances (not protected: see decision 53) and
     * for rows written before migration 0013 (treated as older than any log).
     */
    blockNumber: integer("block_number"),
    logIndex: integer("log_index"),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ columns: [t.chainId, t.contractAddress, t.tokenId, t.ownerAddress] }),
    index("ownerships_owner_idx").on(t.ownerAddress, t.chainId),
  ],
);

export const tokenMetadata = sqliteTable(
  "token_metadata",
  {
    chainId: integer("chain_id").notNull(),
    contractAddress: text("contract_address").notNull(),
    /** `default` for the drop's default metadata, otherwise the token id it overrides. */
    tokenKey: text("token_key").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    image: text("image"),
    animationUrl: text("animation_url"),
    externalUrl: text("external_url"),
    /** JSON array of TokenAttribute. */
    attributes: text("attributes"),
    /** JSON object. */
    properties: text("properties"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.contractAddress, t.tokenKey] })],
);

export const orders = sqliteTable(
  "orders",
  {
    orderHash: text("order_hash").primaryKey(),
    chainId: integer("chain_id").notNull(),
    status: text("status", { enum: ["active", "filled", "cancelled", "expired", "inactive"] }).notNull(),
    offerer: text("offerer").notNull(),
    contractAddress: text("contract_address").notNull(),
    tokenId: text("token_id").notNull(),
    quantity: text("quantity").notNull(),
    /** What the buyer pays per unit (all consideration items / quantity), smallest unit. */
    unitPrice: text("unit_price").notNull(),
    priceSort: text("price_sort").notNull(),
    /** null = native currency. */
    currencyAddress: text("currency_address"),
    priceSymbol: text("price_symbol").notNull(),
    startTime: integer("start_time", { mode: "timestamp_ms" }).notNull(),
    endTime: integer("end_time", { mode: "timestamp_ms" }).notNull(),
    counter: text("counter").notNull(),
    /** Full Seaport OrderComponents as JSON (numbers as decimal strings). */
    parameters: text("parameters").notNull(),
    signature: text("signature").notNull(),
    /** Project whose key submitted the order, if any. */
    projectId: text("project_id"),
    fillTransactionHash: text("fill_transaction_hash"),
    /**
     * Who moves the offered token when the order fills: the chain's Seaport (zero conduitKey) or
     * the order's conduit; an approval given to this address or taken from it is what counts.
     * Null on orders accepted before migration 0014: read as the chain's Seaport.
     */
    operator: text("operator"),
    /** Submitted before its start time: the sweep recomputes the token's best listing once it starts, then clears this. */
    startPending: integer("start_pending", { mode: "boolean" }).notNull().default(false),
    /** An inactive listing a revival hint named whose chain check has not been made yet (reads failed, or the range's checks ran out): retried each run (decision 97). */
    revivalDueAt: integer("revival_due_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("orders_revival_due_idx").on(t.chainId, t.revivalDueAt).where(sql`${t.revivalDueAt} is not null and ${t.status} = 'inactive'`),
    // Each list index ends in the price sort, its tie-break and what the list filters on besides
    // (end_time; an offerer's collection): a page's ids and its count come from the index alone (decision 107).
    index("orders_token_status_price_idx").on(t.chainId, t.contractAddress, t.tokenId, t.status, t.priceSort, t.orderHash, t.endTime),
    // A collection's floor (trending): its cheapest active order without reading the others (decision 34).
    index("orders_contract_status_price_idx").on(t.chainId, t.contractAddress, t.status, t.priceSort, t.orderHash, t.endTime),
    index("orders_offerer_idx").on(t.chainId, t.offerer, t.status, t.priceSort, t.orderHash, t.contractAddress, t.endTime),
    index("orders_status_end_idx").on(t.status, t.endTime),
    index("orders_start_pending_idx").on(t.startPending, t.startTime),
  ],
);

export const sales = sqliteTable(
  "sales",
  {
    id: text("id").primaryKey(),
    chainId: integer("chain_id").notNull(),
    collectionId: text("collection_id").notNull(),
    contractAddress: text("contract_address").notNull(),
    tokenId: text("token_id").notNull(),
    quantity: text("quantity").notNull(),
    orderHash: text("order_hash"),
    seller: text("seller").notNull(),
    buyer: text("buyer").notNull(),
    /** Total paid, smallest unit. */
    price: text("price").notNull(),
    /**
     * The same price split at 10^9 (price = priceGwei * 10^9 + priceSubGwei) so SQL can SUM
     * volumes exactly within 64-bit integers; trending ranks and reports from these.
     */
    priceGwei: integer("price_gwei").notNull(),
    priceSubGwei: integer("price_sub_gwei").notNull(),
    currencyAddress: text("currency_address"),
    transactionHash: text("transaction_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    blockNumber: integer("block_number").notNull(),
    soldAt: integer("sold_at", { mode: "timestamp_ms" }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("sales_tx_log_uq").on(t.chainId, t.transactionHash, t.logIndex),
    // Trending windows: each index also holds every column the volume sums read, so a period's
    // sales are summed from the index alone (30 days of 60,000 sales: 31 → 6 ms; decision 34).
    index("sales_chain_sold_idx").on(t.chainId, t.soldAt, t.collectionId, t.currencyAddress, t.priceGwei, t.priceSubGwei),
    index("sales_collection_sold_idx").on(t.collectionId, t.soldAt, t.currencyAddress, t.priceGwei, t.priceSubGwei),
  ],
);

export const transactions = sqliteTable(
  "transactions",
  {
    id: text("id").primaryKey(),
    jobId: text("job_id").notNull(),
    projectId: text("project_id").notNull(),
    chainId: integer("chain_id").notNull(),
    status: text("status", { enum: ["pending", "confirmed", "reverted", "failed"] }).notNull(),
    /** What the transaction does, for side effects on confirmation. */
    kind: text("kind", { enum: ["deploy", "claim", "mint", "transfer", "buy", "approve", "nonce_fill"] }).notNull(),
    /** The drop id or order hash the transaction acts on. */
    subjectId: text("subject_id"),
    fromAddress: text("from_address").notNull(),
    toAddress: text("to_address").notNull(),
    value: text("value").notNull(),
    data: text("data").notNull(),
    nonce: integer("nonce"),
    transactionHash: text("transaction_hash"),
    gasUsed: text("gas_used"),
    gasPrice: text("gas_price"),
    totalGasFee: text("total_gas_fee"),
    blockNumber: integer("block_number"),
    errorMessage: text("error_message"),
    metadata: text("metadata"),
    /** Internal JSON the confirmation needs (claim: recipient, overrides, predicted ids). Never returned. */
    payload: text("payload"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("transactions_project_created_idx").on(t.projectId, t.createdAt),
    index("transactions_project_status_created_idx").on(t.projectId, t.status, t.createdAt),
    index("transactions_job_idx").on(t.jobId),
    index("transactions_hash_idx").on(t.chainId, t.transactionHash),
    // "Is a claim of this drop pending?", asked by every metadata request (decision 93): only pending rows, so it stays small.
    index("transactions_pending_subject_idx").on(t.subjectId, t.kind).where(sql`${t.status} = 'pending'`),
  ],
);

export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    projectId: text("project_id").notNull(),
    key: text("key").notNull(),
    /** Method + path + SHA-256 of the body, to detect reuse with a different request. */
    requestHash: text("request_hash").notNull(),
    status: text("status", { enum: ["in_progress", "completed"] }).notNull(),
    responseStatus: integer("response_status"),
    responseBody: text("response_body"),
    /** JSON object of the first response's headers worth replaying (content-type, deprecation…). */
    responseHeaders: text("response_headers"),
    createdAt: createdAt(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.projectId, t.key] }), index("idempotency_expires_idx").on(t.expiresAt)],
);

export const indexerCursors = sqliteTable("indexer_cursors", {
  chainId: integer("chain_id").primaryKey(),
  /** Last block whose logs are fully applied. */
  lastBlock: integer("last_block").notNull(),
  /** One indexer run per chain at a time: the running pass's random token and when its claim lapses. */
  leaseToken: text("lease_token"),
  leaseUntil: integer("lease_until"),
  updatedAt: updatedAt(),
});

/**
 * Chain logs whose effects are applied (Transfer, OrderFulfilled…). The receipt handler and the
 * indexer both see the same logs; whoever inserts the row first applies the effects, in the same
 * D1 batch, guarded by `applied_by` (see services/chain-events).
 */
export const chainEvents = sqliteTable(
  "chain_events",
  {
    chainId: integer("chain_id").notNull(),
    transactionHash: text("transaction_hash").notNull(),
    logIndex: integer("log_index").notNull(),
    /** Random token of the batch that applied the log. */
    appliedBy: text("applied_by").notNull(),
    blockNumber: integer("block_number").notNull(),
    /** The block the log was applied from; null on claims made before migration 0017. */
    blockHash: text("block_hash"),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.chainId, t.transactionHash, t.logIndex] })],
);

/** Webhook endpoints a project registered (secret key). Signing secrets are derived, never stored. */
export const webhookEndpoints = sqliteTable(
  "webhook_endpoints",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    url: text("url").notNull(),
    /** JSON array of event names. */
    events: text("events").notNull(),
    /** Which derived signing secret is current: 1 at registration, +1 per rotation (signing.ts). */
    secretVersion: integer("secret_version").notNull().default(1),
    /** Until when deliveries are also signed with the previous version's secret; null: not at all. */
    previousSecretUntil: integer("previous_secret_until", { mode: "timestamp_ms" }),
    createdAt: createdAt(),
    deletedAt: integer("deleted_at", { mode: "timestamp_ms" }),
    /** Set when the endpoint answered 410 Gone or failed every attempt for days; cleared by enabling it (decision 108). */
    disabledAt: integer("disabled_at", { mode: "timestamp_ms" }),
    disabledReason: text("disabled_reason"),
    /** The first failed attempt of the current failure run; null while the endpoint answers. */
    failingSince: integer("failing_since", { mode: "timestamp_ms" }),
    /** The run's latest failed attempt: a day without one starts a new run (decision 108). */
    lastFailedAt: integer("last_failed_at", { mode: "timestamp_ms" }),
  },
  (t) => [index("webhook_endpoints_project_idx").on(t.projectId, t.deletedAt)],
);

/** One event for one endpoint: retried with backoff for 24 h, the delivery log of the API. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    endpointId: text("endpoint_id").notNull(),
    projectId: text("project_id").notNull(),
    /** Same for every endpoint that gets the event; receivers de-duplicate on it. */
    eventId: text("event_id").notNull(),
    eventType: text("event_type").notNull(),
    /** The JSON body, frozen when the event happened. */
    payload: text("payload").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] }).notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at", { mode: "timestamp_ms" }).notNull(),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    createdAt: createdAt(),
    deliveredAt: integer("delivered_at", { mode: "timestamp_ms" }),
    /** When the 24 h retry window started: the last resend, or null for `created_at` (decision 80). */
    windowStartedAt: integer("window_started_at", { mode: "timestamp_ms" }),
  },
  (t) => [
    index("webhook_deliveries_endpoint_created_idx").on(t.endpointId, t.createdAt),
    index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt),
    // A project's dispatcher: its own due rows, never another project's backlog (decision 34).
    index("webhook_deliveries_project_due_idx").on(t.projectId, t.status, t.nextAttemptAt),
    // An endpoint's turn: its due rows, not its history (decision 59).
    index("webhook_deliveries_endpoint_due_idx").on(t.endpointId, t.status, t.nextAttemptAt),
    /** An endpoint's failed deliveries by event time: recover's range (decision 101). */
    index("webhook_deliveries_endpoint_status_created_idx").on(t.endpointId, t.status, t.createdAt),
    uniqueIndex("webhook_deliveries_event_endpoint_uq").on(t.eventId, t.endpointId),
  ],
);

/**
 * A key the dashboard created, not yet shown: the flash that carries the plain key to the next
 * page carries this nonce too, and the page that renders the key deletes the row first, so a
 * replayed flash cookie shows no key (decision 121). Rows of flashes never rendered are deleted
 * by the cron's sweep after `expires_at`.
 */
export const dashboardKeyDisplays = sqliteTable("dashboard_key_displays", {
  nonce: text("nonce").primaryKey(),
  expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
});
