DROP INDEX `assets_created_idx`;--> statement-breakpoint
DROP INDEX `assets_chain_created_idx`;--> statement-breakpoint
DROP INDEX `assets_contract_created_idx`;--> statement-breakpoint
DROP INDEX `assets_collection_created_idx`;--> statement-breakpoint
DROP INDEX `assets_verified_created_idx`;--> statement-breakpoint
CREATE INDEX `assets_created_id_idx` ON `assets` (`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `assets_chain_created_id_idx` ON `assets` (`chain_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `assets_contract_created_id_idx` ON `assets` (`contract_address`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `assets_collection_created_id_idx` ON `assets` (`collection_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `assets_verified_created_id_idx` ON `assets` (`is_verified`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `assets_chain_verified_best_price_idx` ON `assets` (`chain_id`,`is_verified`,`best_price_sort`);