-- A project's webhook dispatcher reads its own due deliveries; on webhook_deliveries_due_idx it
-- read every project's pending rows, so one project's dead endpoint slowed everyone's (decision 34).
CREATE INDEX `webhook_deliveries_project_due_idx` ON `webhook_deliveries` (`project_id`,`status`,`next_attempt_at`);
