CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`kind` text NOT NULL,
	`key_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_uq` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_project_idx` ON `api_keys` (`project_id`);--> statement-breakpoint
CREATE TABLE `assets` (
	`id` text PRIMARY KEY NOT NULL,
	`chain_id` integer NOT NULL,
	`contract_address` text NOT NULL,
	`token_id` text NOT NULL,
	`collection_id` text NOT NULL,
	`schema` text NOT NULL,
	`name` text,
	`name_lower` text,
	`description` text,
	`image_url` text,
	`animation_url` text,
	`token_uri` text,
	`is_verified` integer DEFAULT false NOT NULL,
	`best_price_sort` text,
	`best_order_hash` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `assets_chain_contract_token_uq` ON `assets` (`chain_id`,`contract_address`,`token_id`);--> statement-breakpoint
CREATE INDEX `assets_created_idx` ON `assets` (`created_at`);--> statement-breakpoint
CREATE INDEX `assets_chain_created_idx` ON `assets` (`chain_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `assets_contract_created_idx` ON `assets` (`contract_address`,`created_at`);--> statement-breakpoint
CREATE INDEX `assets_collection_created_idx` ON `assets` (`collection_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `assets_verified_created_idx` ON `assets` (`is_verified`,`created_at`);--> statement-breakpoint
CREATE INDEX `assets_best_price_idx` ON `assets` (`best_price_sort`);--> statement-breakpoint
CREATE INDEX `assets_chain_best_price_idx` ON `assets` (`chain_id`,`best_price_sort`);--> statement-breakpoint
CREATE INDEX `assets_contract_best_price_idx` ON `assets` (`contract_address`,`best_price_sort`);--> statement-breakpoint
CREATE TABLE `collections` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`chain_id` integer NOT NULL,
	`contract_address` text NOT NULL,
	`schema` text NOT NULL,
	`name` text,
	`image_url` text,
	`description` text,
	`is_verified` integer DEFAULT false NOT NULL,
	`drop_id` text,
	`tracked` integer DEFAULT true NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `collections_slug_uq` ON `collections` (`slug`);--> statement-breakpoint
CREATE UNIQUE INDEX `collections_chain_contract_uq` ON `collections` (`chain_id`,`contract_address`);--> statement-breakpoint
CREATE INDEX `collections_verified_idx` ON `collections` (`is_verified`);--> statement-breakpoint
CREATE TABLE `drops` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`chain_id` integer NOT NULL,
	`contract_address` text NOT NULL,
	`salt` text NOT NULL,
	`name` text NOT NULL,
	`symbol` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`owner_address` text NOT NULL,
	`blindbox_key` text NOT NULL,
	`provenance_hash` text NOT NULL,
	`image_url` text DEFAULT '' NOT NULL,
	`base_uri` text NOT NULL,
	`mode` text NOT NULL,
	`metadata_storage_type` text NOT NULL,
	`metadata_repo_id` text,
	`creator_fee_address` text NOT NULL,
	`creator_fee_bps` integer NOT NULL,
	`total_supply` integer,
	`unit_price` text NOT NULL,
	`currency_address` text,
	`start_time` integer,
	`limit_per_wallet` integer,
	`merkle_root` text,
	`allowlist_tree` text,
	`next_token_id` integer DEFAULT 1 NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`deploy_transaction_id` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `drops_chain_contract_uq` ON `drops` (`chain_id`,`contract_address`);--> statement-breakpoint
CREATE INDEX `drops_project_created_idx` ON `drops` (`project_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `drops_chain_created_idx` ON `drops` (`chain_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `drops_created_idx` ON `drops` (`created_at`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`project_id` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`status` text NOT NULL,
	`response_status` integer,
	`response_body` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`project_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_expires_idx` ON `idempotency_keys` (`expires_at`);--> statement-breakpoint
CREATE TABLE `indexer_cursors` (
	`chain_id` integer PRIMARY KEY NOT NULL,
	`last_block` integer NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `orders` (
	`order_hash` text PRIMARY KEY NOT NULL,
	`chain_id` integer NOT NULL,
	`status` text NOT NULL,
	`offerer` text NOT NULL,
	`contract_address` text NOT NULL,
	`token_id` text NOT NULL,
	`quantity` text NOT NULL,
	`unit_price` text NOT NULL,
	`price_sort` text NOT NULL,
	`currency_address` text,
	`price_symbol` text NOT NULL,
	`start_time` integer NOT NULL,
	`end_time` integer NOT NULL,
	`counter` text NOT NULL,
	`parameters` text NOT NULL,
	`signature` text NOT NULL,
	`project_id` text,
	`fill_transaction_hash` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `orders_token_status_price_idx` ON `orders` (`chain_id`,`contract_address`,`token_id`,`status`,`price_sort`);--> statement-breakpoint
CREATE INDEX `orders_offerer_idx` ON `orders` (`chain_id`,`offerer`,`status`);--> statement-breakpoint
CREATE INDEX `orders_status_end_idx` ON `orders` (`status`,`end_time`);--> statement-breakpoint
CREATE TABLE `ownerships` (
	`chain_id` integer NOT NULL,
	`contract_address` text NOT NULL,
	`token_id` text NOT NULL,
	`owner_address` text NOT NULL,
	`balance` text NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`chain_id`, `contract_address`, `token_id`, `owner_address`)
);
--> statement-breakpoint
CREATE INDEX `ownerships_owner_idx` ON `ownerships` (`owner_address`,`chain_id`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`wallet_index` integer NOT NULL,
	`wallet_address` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_wallet_index_uq` ON `projects` (`wallet_index`);--> statement-breakpoint
CREATE INDEX `projects_created_at_idx` ON `projects` (`created_at`);--> statement-breakpoint
CREATE TABLE `sales` (
	`id` text PRIMARY KEY NOT NULL,
	`chain_id` integer NOT NULL,
	`collection_id` text NOT NULL,
	`contract_address` text NOT NULL,
	`token_id` text NOT NULL,
	`quantity` text NOT NULL,
	`order_hash` text,
	`seller` text NOT NULL,
	`buyer` text NOT NULL,
	`price` text NOT NULL,
	`price_gwei` integer NOT NULL,
	`price_sub_gwei` integer NOT NULL,
	`currency_address` text,
	`transaction_hash` text NOT NULL,
	`log_index` integer NOT NULL,
	`block_number` integer NOT NULL,
	`sold_at` integer NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sales_tx_log_uq` ON `sales` (`chain_id`,`transaction_hash`,`log_index`);--> statement-breakpoint
CREATE INDEX `sales_chain_sold_idx` ON `sales` (`chain_id`,`sold_at`);--> statement-breakpoint
CREATE INDEX `sales_sold_idx` ON `sales` (`sold_at`);--> statement-breakpoint
CREATE INDEX `sales_collection_sold_idx` ON `sales` (`collection_id`,`sold_at`);--> statement-breakpoint
CREATE TABLE `token_metadata` (
	`chain_id` integer NOT NULL,
	`contract_address` text NOT NULL,
	`token_key` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`image` text,
	`animation_url` text,
	`external_url` text,
	`attributes` text,
	`properties` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`chain_id`, `contract_address`, `token_key`)
);
--> statement-breakpoint
CREATE TABLE `transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`job_id` text NOT NULL,
	`project_id` text NOT NULL,
	`chain_id` integer NOT NULL,
	`status` text NOT NULL,
	`kind` text NOT NULL,
	`subject_id` text,
	`from_address` text NOT NULL,
	`to_address` text NOT NULL,
	`value` text NOT NULL,
	`data` text NOT NULL,
	`nonce` integer,
	`transaction_hash` text,
	`gas_used` text,
	`gas_price` text,
	`total_gas_fee` text,
	`block_number` integer,
	`error_message` text,
	`metadata` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `transactions_project_created_idx` ON `transactions` (`project_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_project_status_created_idx` ON `transactions` (`project_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_job_idx` ON `transactions` (`job_id`);--> statement-breakpoint
CREATE INDEX `transactions_hash_idx` ON `transactions` (`chain_id`,`transaction_hash`);