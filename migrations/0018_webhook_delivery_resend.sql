-- A delivery resent on request (POST /v1/webhooks/{id}/deliveries/{deliveryId}/resend) gets a new
-- 24 h retry window from the resend (decision 80). Null: the window runs from `created_at`.
ALTER TABLE `webhook_deliveries` ADD `window_started_at` integer;
