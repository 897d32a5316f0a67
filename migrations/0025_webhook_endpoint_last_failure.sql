-- A failure run of a webhook endpoint restarts after a day without a failed attempt (decision
-- 108): the run's latest failure.
ALTER TABLE `webhook_endpoints` ADD `last_failed_at` integer;