CREATE TABLE `drop_allowlists` (
	`drop_id` text PRIMARY KEY NOT NULL,
	`tree` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`drop_id`) REFERENCES `drops`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
-- Hand-added: move the inline trees before their column goes.
INSERT INTO `drop_allowlists` (`drop_id`, `tree`) SELECT `id`, `allowlist_tree` FROM `drops` WHERE `allowlist_tree` IS NOT NULL;
--> statement-breakpoint
ALTER TABLE `drops` DROP COLUMN `allowlist_tree`;