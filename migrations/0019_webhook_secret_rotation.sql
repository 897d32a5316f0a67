-- Webhook signing secrets can be rotated (POST /v1/webhooks/{id}/rotate-secret, decision 88): the
-- secret is still derived, never stored; `secret_version` says which derivation is current and
-- `previous_secret_until` how long deliveries also carry the previous one's signature.
ALTER TABLE `webhook_endpoints` ADD `secret_version` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `previous_secret_until` integer;