-- Statistics, after the keys (InnoDB keeps statistics per index). The load session, the meta table and the schema
-- bookkeeping are shared by every workload: internal/workload/sql.
-- name: analyze
ANALYZE TABLE pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history
