-- Listings submitted before their start time: the sweep recomputes their token's best listing once
-- they start (decision 45). The index serves that sweep's `start_pending = 1 and start_time <= now`.
ALTER TABLE `orders` ADD `start_pending` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `orders_start_pending_idx` ON `orders` (`start_pending`,`start_time`);--> statement-breakpoint
-- Listings stored before this migration with a start still ahead get the flag too, so the sweep
-- brings them in when they start.
UPDATE `orders` SET `start_pending` = 1 WHERE `status` IN ('active', 'inactive') AND `start_time` > cast(unixepoch('subsec') * 1000 as integer);
