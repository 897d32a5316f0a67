-- Trending ranks one chain at a time (decision 70): its windows read sales_chain_sold_idx, and no
-- query reads sales by time across chains. One index fewer to write on every sale.
DROP INDEX `sales_sold_idx`;
