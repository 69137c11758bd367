-- Bookkeeping: which of our tables exist, and the meta table that marks a finished prepare and
-- records the scale factor and the refresh sets applied since.
-- name: tables_present
SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()
  AND table_name IN ('region','nation','supplier','customer','part','partsupp','orders','lineitem','cairn_tpch_meta')
-- name: meta_create
CREATE TABLE cairn_tpch_meta (k varchar(64) PRIMARY KEY, v varchar(4000))
-- name: meta_get
SELECT v FROM cairn_tpch_meta WHERE k = $1
-- name: meta_put
INSERT INTO cairn_tpch_meta (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v
-- name: load_session
SET synchronous_commit = off
-- name: meta_drop
DROP TABLE IF EXISTS cairn_tpch_meta
