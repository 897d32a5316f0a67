ALTER TABLE `collections` ADD `backfill_next_block` integer;--> statement-breakpoint
ALTER TABLE `indexer_cursors` ADD `lease_token` text;--> statement-breakpoint
ALTER TABLE `indexer_cursors` ADD `lease_until` integer;