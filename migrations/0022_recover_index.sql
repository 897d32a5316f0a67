-- POST /v1/webhooks/{id}/recover reads an endpoint's failed deliveries by event time (decision
-- 101); on (endpoint_id, created_at) it walked every delivery of the range, delivered ones too.
CREATE INDEX `webhook_deliveries_endpoint_status_created_idx` ON `webhook_deliveries` (`endpoint_id`,`status`,`created_at`);