-- name: tables_present
SELECT name FROM sqlite_master WHERE type = 'table'
  AND name IN ('warehouse','district','customer','history','new_order','orders','order_line','item','stock','cairn_tpcc_meta')
-- name: meta_create
CREATE TABLE cairn_tpcc_meta (k TEXT PRIMARY KEY, v TEXT)
-- name: meta_get
SELECT v FROM cairn_tpcc_meta WHERE k = ?
-- name: meta_put
INSERT OR REPLACE INTO cairn_tpcc_meta (k, v) VALUES (?, ?)
-- name: load_session
PRAGMA synchronous = OFF
-- name: analyze
ANALYZE
