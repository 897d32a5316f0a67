-- The drop list filtered by contract alone (no chain) had no index to use (decision 34).
CREATE INDEX `drops_contract_idx` ON `drops` (`contract_address`);
