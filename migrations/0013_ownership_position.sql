-- ERC721 ownership rows remember the chain position of the Transfer that made them, so an older
-- Transfer applied later cannot overwrite a newer owner (decision 53). Existing rows stay null:
-- older than any log.
ALTER TABLE `ownerships` ADD `block_number` integer;--> statement-breakpoint
ALTER TABLE `ownerships` ADD `log_index` integer;