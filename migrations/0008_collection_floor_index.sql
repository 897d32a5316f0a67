-- A collection's floor price (GET /v1/collections/trending) walks this index in price order and
-- stops at its first live native listing, instead of reading every active order (decision 34).
CREATE INDEX `orders_contract_status_price_idx` ON `orders` (`chain_id`,`contract_address`,`status`,`price_sort`);
