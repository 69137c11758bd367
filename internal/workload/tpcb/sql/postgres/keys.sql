-- pgbench's init step "p" (initCreatePKeys), after the load and the vacuum.
-- name: pgbench_branches
alter table pgbench_branches add primary key (bid)
-- name: pgbench_tellers
alter table pgbench_tellers add primary key (tid)
-- name: pgbench_accounts
alter table pgbench_accounts add primary key (aid)
