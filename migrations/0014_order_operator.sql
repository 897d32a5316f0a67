-- The address that moves an order's token (Seaport or the order's conduit), so approvals given to
-- or taken from a conduit reach its listings (decision 55). Existing rows stay null: the chain's Seaport.
ALTER TABLE `orders` ADD `operator` text;