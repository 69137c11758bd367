-- name: tables_present
SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()
  AND table_name IN ('warehouse','district','customer','history','new_order','orders','order_line','item','stock','cairn_tpcc_meta')
-- name: meta_create
CREATE TABLE cairn_tpcc_meta (k varchar(64) PRIMARY KEY, v varchar(4000)) ENGINE=InnoDB
-- name: meta_get
SELECT v FROM cairn_tpcc_meta WHERE k = ?
-- name: meta_put
REPLACE INTO cairn_tpcc_meta (k, v) VALUES (?, ?)
-- name: load_session
SET unique_checks = 0, foreign_key_checks = 0
-- name: analyze
ANALYZE TABLE warehouse, district, customer, history, new_order, orders, order_line, item, stock
