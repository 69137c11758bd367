-- pgbench's init step "v" (initVacuum). The load session, the meta table and the schema
-- bookkeeping are shared by every workload: internal/workload/sql.
-- name: vacuum_branches
vacuum analyze pgbench_branches
-- name: vacuum_tellers
vacuum analyze pgbench_tellers
-- name: vacuum_accounts
vacuum analyze pgbench_accounts
-- name: vacuum_history
vacuum analyze pgbench_history
