-- Trending sums each period's sales from the index alone: every column the sums read is in the
-- index (decision 34).
DROP INDEX `sales_chain_sold_idx`;--> statement-breakpoint
DROP INDEX `sales_sold_idx`;--> statement-breakpoint
DROP INDEX `sales_collection_sold_idx`;--> statement-breakpoint
CREATE INDEX `sales_chain_sold_idx` ON `sales` (`chain_id`,`sold_at`,`collection_id`,`currency_address`,`price_gwei`,`price_sub_gwei`);--> statement-breakpoint
CREATE INDEX `sales_sold_idx` ON `sales` (`sold_at`,`collection_id`,`currency_address`,`price_gwei`,`price_sub_gwei`);--> statement-breakpoint
CREATE INDEX `sales_collection_sold_idx` ON `sales` (`collection_id`,`sold_at`,`currency_address`,`price_gwei`,`price_sub_gwei`);
