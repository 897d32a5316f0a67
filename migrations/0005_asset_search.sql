-- Substring search over asset names from an index: an FTS5 table with the trigram tokenizer
-- (matches any run of 3+ characters), kept by triggers on assets. Rows carry the asset id, not
-- the assets rowid, because SQLite may renumber implicit rowids (VACUUM). Names do not change
-- after insert in this service; the update trigger covers a future rename.
CREATE VIRTUAL TABLE `assets_search` USING fts5(`asset_id` UNINDEXED, `name_lower`, tokenize = 'trigram');--> statement-breakpoint
INSERT INTO `assets_search` (`asset_id`, `name_lower`) SELECT `id`, `name_lower` FROM `assets` WHERE `name_lower` IS NOT NULL;--> statement-breakpoint
CREATE TRIGGER `assets_search_insert` AFTER INSERT ON `assets` WHEN new.`name_lower` IS NOT NULL BEGIN
  INSERT INTO `assets_search` (`asset_id`, `name_lower`) VALUES (new.`id`, new.`name_lower`);
END;--> statement-breakpoint
CREATE TRIGGER `assets_search_update` AFTER UPDATE OF `name_lower` ON `assets` WHEN old.`name_lower` IS NOT new.`name_lower` BEGIN
  DELETE FROM `assets_search` WHERE `asset_id` = old.`id`;
  INSERT INTO `assets_search` (`asset_id`, `name_lower`) SELECT new.`id`, new.`name_lower` WHERE new.`name_lower` IS NOT NULL;
END;--> statement-breakpoint
CREATE TRIGGER `assets_search_delete` AFTER DELETE ON `assets` BEGIN
  DELETE FROM `assets_search` WHERE `asset_id` = old.`id`;
END;
