-- A key the dashboard created is shown once: the page that renders it consumes its nonce
-- (decision 121).
CREATE TABLE `dashboard_key_displays` (
	`nonce` text PRIMARY KEY NOT NULL,
	`expires_at` integer NOT NULL
);
