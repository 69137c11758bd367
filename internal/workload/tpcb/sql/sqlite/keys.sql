-- pgbench's init step "p" (initCreatePKeys), after the load. SQLite cannot add a primary key to
-- an existing table; a unique index on the not-null key column is what PostgreSQL's primary key
-- is, too (the table stays a heap ordered by rowid, as PostgreSQL's stays a heap).
-- name: pgbench_branches
create unique index pgbench_branches_pkey on pgbench_branches (bid)
-- name: pgbench_tellers
create unique index pgbench_tellers_pkey on pgbench_tellers (tid)
-- name: pgbench_accounts
create unique index pgbench_accounts_pkey on pgbench_accounts (aid)
