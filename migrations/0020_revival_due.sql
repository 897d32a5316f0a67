-- Revival checks that could not be made (the chain reads failed, or a range's 50 checks ran out)
-- are remembered on the order and retried by every indexer run until a read answers (decision 97).
ALTER TABLE `orders` ADD `revival_due_at` integer;--> statement-breakpoint
CREATE INDEX `orders_revival_due_idx` ON `orders` (`chain_id`,`revival_due_at`) WHERE "orders"."revival_due_at" is not null and "orders"."status" = 'inactive';