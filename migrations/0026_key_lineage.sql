-- Each key records the secret key whose dashboard session created it, so a leaked key can be
-- revoked with every key it created (decision 110).
ALTER TABLE `api_keys` ADD `created_by_key_id` text;--> statement-breakpoint
CREATE INDEX `api_keys_created_by_idx` ON `api_keys` (`created_by_key_id`);