-- Price sort keys start with the currency class: '0' native, '1' an ERC20 (decision 27), so that
-- raw amounts of different currencies never compare and the native-first rule of decision 22 is
-- in the key itself. Existing keys are the 78-digit zero-padded price alone.
UPDATE `orders` SET `price_sort` = (CASE WHEN `currency_address` IS NULL THEN '0' ELSE '1' END) || `price_sort` WHERE length(`price_sort`) = 78;
--> statement-breakpoint
UPDATE `assets` SET `best_price_sort` = (SELECT `o`.`price_sort` FROM `orders` `o` WHERE `o`.`order_hash` = `assets`.`best_order_hash`) WHERE `best_order_hash` IS NOT NULL;
