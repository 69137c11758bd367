-- pgbench's tables for SQLite, with pgbench's column declarations (SQLite gives int columns
-- integer affinity and char(n) text affinity; it does not pad). {{aid}} is int, or bigint from
-- scale 20000 on. SQLite has no fill factor.
-- name: pgbench_history
create table pgbench_history(tid int,bid int,aid {{aid}},delta int,mtime timestamp,filler char(22))
-- name: pgbench_tellers
create table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84))
-- name: pgbench_accounts
create table pgbench_accounts(aid {{aid}} not null,bid int,abalance int,filler char(84))
-- name: pgbench_branches
create table pgbench_branches(bid int not null,bbalance int,filler char(88))
