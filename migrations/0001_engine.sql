CREATE TABLE `chain_events` (
	`chain_id` integer NOT NULL,
	`transaction_hash` text NOT NULL,
	`log_index` integer NOT NULL,
	`applied_by` text NOT NULL,
	`block_number` integer NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`chain_id`, `transaction_hash`, `log_index`)
);
--> statement-breakpoint
ALTER TABLE `idempotency_keys` ADD `response_headers` text;--> statement-breakpoint
ALTER TABLE `transactions` ADD `payload` text;