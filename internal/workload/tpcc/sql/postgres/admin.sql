-- Bookkeeping: which of our tables exist, the meta table that marks a finished prepare, statistics.
-- name: tables_present
SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()
  AND table_name IN ('warehouse','district','customer','history','new_order','orders','order_line','item','stock','cairn_tpcc_meta')
-- name: meta_create
CREATE TABLE cairn_tpcc_meta (k varchar(64) PRIMARY KEY, v varchar(4000))
-- name: meta_get
SELECT v FROM cairn_tpcc_meta WHERE k = $1
-- name: meta_put
INSERT INTO cairn_tpcc_meta (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v
-- name: load_session
SET synchronous_commit = off
-- name: analyze
ANALYZE warehouse, district, customer, history, new_order, orders, order_line, item, stock
