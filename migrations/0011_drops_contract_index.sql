-- The drop list filtered by contract alone (no chain) needs an index of its own (decision 34).
CREATE INDEX `drops_contract_idx` ON `drops` (`contract_address`);
