-- Bookkeeping: which of our tables exist, the meta table that marks a finished prepare, the load
-- session, and statistics (after the keys: InnoDB keeps statistics per index).
-- name: tables_present
SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()
  AND table_name IN ('pgbench_accounts','pgbench_branches','pgbench_tellers','pgbench_history','cairn_tpcb_meta')
-- name: meta_create
CREATE TABLE cairn_tpcb_meta (k varchar(64) PRIMARY KEY, v varchar(4000)) ENGINE=InnoDB
-- name: meta_get
SELECT v FROM cairn_tpcb_meta WHERE k = ?
-- name: meta_put
REPLACE INTO cairn_tpcb_meta (k, v) VALUES (?, ?)
-- name: load_session
SET unique_checks = 0, foreign_key_checks = 0
-- name: analyze
ANALYZE TABLE pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history
