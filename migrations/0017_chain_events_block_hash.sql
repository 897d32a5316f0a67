-- Each log claim records the block it was applied from (decision 75): a transaction claimed from
-- one block is not applied again when a reorg brings it back in another, at other log indexes.
-- Claims made before this migration keep a null hash and stop nothing.
ALTER TABLE `chain_events` ADD `block_hash` text;
