-- pgbench's tables (initCreateTables in src/bin/pgbench/pgbench.c of PostgreSQL 15), verbatim.
-- {{aid}} is int, or bigint from scale 20000 on (pgbench's SCALE_32BIT_THRESHOLD); {{fillfactor}}
-- is --fillfactor (default 100). Primary keys are added after the load (keys.sql), as pgbench's
-- default init steps "dtgvp" do.
-- name: pgbench_history
create table pgbench_history(tid int,bid int,aid {{aid}},delta int,mtime timestamp,filler char(22))
-- name: pgbench_tellers
create table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84)) with (fillfactor={{fillfactor}})
-- name: pgbench_accounts
create table pgbench_accounts(aid {{aid}} not null,bid int,abalance int,filler char(84)) with (fillfactor={{fillfactor}})
-- name: pgbench_branches
create table pgbench_branches(bid int not null,bbalance int,filler char(88)) with (fillfactor={{fillfactor}})
