-- Order lists (decision 107): each list index also holds the tie-break and the columns the lists
-- filter on besides, so a page's ids and its count are read from the index without table rows.
DROP INDEX `orders_token_status_price_idx`;--> statement-breakpoint
DROP INDEX `orders_contract_status_price_idx`;--> statement-breakpoint
DROP INDEX `orders_offerer_idx`;--> statement-breakpoint
CREATE INDEX `orders_token_status_price_idx` ON `orders` (`chain_id`,`contract_address`,`token_id`,`status`,`price_sort`,`order_hash`,`end_time`);--> statement-breakpoint
CREATE INDEX `orders_contract_status_price_idx` ON `orders` (`chain_id`,`contract_address`,`status`,`price_sort`,`order_hash`,`end_time`);--> statement-breakpoint
CREATE INDEX `orders_offerer_idx` ON `orders` (`chain_id`,`offerer`,`status`,`price_sort`,`order_hash`,`contract_address`,`end_time`);