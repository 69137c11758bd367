-- Bookkeeping: which of our tables exist, and the meta table that marks a finished prepare and
-- records the scale factor and the refresh sets applied since.
-- name: tables_present
SELECT name FROM sqlite_master WHERE type = 'table'
  AND name IN ('region','nation','supplier','customer','part','partsupp','orders','lineitem','cairn_tpch_meta')
-- name: meta_create
CREATE TABLE cairn_tpch_meta (k TEXT PRIMARY KEY, v TEXT)
-- name: meta_get
SELECT v FROM cairn_tpch_meta WHERE k = ?
-- name: meta_put
INSERT OR REPLACE INTO cairn_tpch_meta (k, v) VALUES (?, ?)
-- name: load_session
PRAGMA synchronous = OFF
-- name: meta_drop
DROP TABLE IF EXISTS cairn_tpch_meta
