-- Each endpoint's turn in the project's webhook dispatcher reads that endpoint's due rows (decision 59);
-- webhook_deliveries_endpoint_created_idx would walk its whole delivered history first.
CREATE INDEX `webhook_deliveries_endpoint_due_idx` ON `webhook_deliveries` (`endpoint_id`,`status`,`next_attempt_at`);
