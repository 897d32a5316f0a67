-- Listings submitted before their start time: the sweep recomputes their token's best listing once
-- they start (decision 45). The index serves that sweep's `start_pending = 1 and start_time <= now`.
ALTER TABLE `orders` ADD `start_pending` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `orders_start_pending_idx` ON `orders` (`start_pending`,`start_time`);