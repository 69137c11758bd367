-- The load session, and statistics (after the keys: InnoDB keeps statistics per index). The
-- meta table and the schema bookkeeping are shared by every workload: internal/workload/sql.
-- name: load_session
SET unique_checks = 0, foreign_key_checks = 0
-- name: analyze
ANALYZE TABLE pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history
