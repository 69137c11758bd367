-- Bookkeeping: which sbtest tables exist, and the meta table that marks a finished prepare.
-- name: tables_present
SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()
  AND (table_name LIKE 'sbtest%' OR table_name = 'cairn_oltp_meta')
-- name: meta_create
CREATE TABLE cairn_oltp_meta (k varchar(64) PRIMARY KEY, v varchar(4000))
-- name: meta_get
SELECT v FROM cairn_oltp_meta WHERE k = $1
-- name: meta_put
INSERT INTO cairn_oltp_meta (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v
-- name: meta_drop
DROP TABLE IF EXISTS cairn_oltp_meta
-- name: load_session
SET synchronous_commit = off
