-- Webhook endpoints that answer 410 Gone or fail every attempt for days are disabled (decision
-- 108); failing_since is when the current run of failed attempts began.
ALTER TABLE `webhook_endpoints` ADD `disabled_at` integer;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `disabled_reason` text;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `failing_since` integer;