-- Bookkeeping: which of our tables exist, and the meta table that marks a finished prepare and
-- records the scale factor and the refresh sets applied since.
-- name: tables_present
SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()
  AND table_name IN ('region','nation','supplier','customer','part','partsupp','orders','lineitem','cairn_tpch_meta')
-- name: meta_create
CREATE TABLE cairn_tpch_meta (k varchar(64) PRIMARY KEY, v varchar(4000)) ENGINE=InnoDB
-- name: meta_get
SELECT v FROM cairn_tpch_meta WHERE k = ?
-- name: meta_put
REPLACE INTO cairn_tpch_meta (k, v) VALUES (?, ?)
-- name: load_session
SET unique_checks = 0, foreign_key_checks = 0
-- name: meta_drop
DROP TABLE IF EXISTS cairn_tpch_meta
