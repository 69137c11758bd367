-- Bookkeeping: which of our tables exist, the meta table that marks a finished prepare, the load
-- session, and pgbench's init step "v" (initVacuum).
-- name: tables_present
SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()
  AND table_name IN ('pgbench_accounts','pgbench_branches','pgbench_tellers','pgbench_history','cairn_tpcb_meta')
-- name: meta_create
CREATE TABLE cairn_tpcb_meta (k varchar(64) PRIMARY KEY, v varchar(4000))
-- name: meta_get
SELECT v FROM cairn_tpcb_meta WHERE k = $1
-- name: meta_put
INSERT INTO cairn_tpcb_meta (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v
-- name: load_session
SET synchronous_commit = off
-- name: vacuum_branches
vacuum analyze pgbench_branches
-- name: vacuum_tellers
vacuum analyze pgbench_tellers
-- name: vacuum_accounts
vacuum analyze pgbench_accounts
-- name: vacuum_history
vacuum analyze pgbench_history
