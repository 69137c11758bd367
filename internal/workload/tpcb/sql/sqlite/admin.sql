-- Bookkeeping: which of our tables exist, the meta table that marks a finished prepare, the load
-- session, and statistics (after the keys: SQLite's statistics describe indexes).
-- name: tables_present
SELECT name FROM sqlite_master WHERE type = 'table'
  AND name IN ('pgbench_accounts','pgbench_branches','pgbench_tellers','pgbench_history','cairn_tpcb_meta')
-- name: meta_create
CREATE TABLE cairn_tpcb_meta (k TEXT PRIMARY KEY, v TEXT)
-- name: meta_get
SELECT v FROM cairn_tpcb_meta WHERE k = ?
-- name: meta_put
INSERT OR REPLACE INTO cairn_tpcb_meta (k, v) VALUES (?, ?)
-- name: load_session
PRAGMA synchronous = OFF
-- name: analyze
ANALYZE
