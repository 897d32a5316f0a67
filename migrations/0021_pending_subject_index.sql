-- The metadata route asks on every request whether a claim or mint of the drop is pending
-- (decision 93); without this index that walked every pending transaction of the project.
CREATE INDEX `transactions_pending_subject_idx` ON `transactions` (`subject_id`,`kind`) WHERE "transactions"."status" = 'pending';