-- pgbench's tables for MySQL and MariaDB: InnoDB, and pgbench's column types, except that the
-- timestamp column is a datetime (MySQL's timestamp converts time zones and ends in 2038).
-- {{aid}} is int, or bigint from scale 20000 on. InnoDB has no per-table fill factor.
-- The primary keys are declared here, not added after the load as pgbench does (keys.sql): InnoDB
-- stores a table in its primary key's order, so adding the key later rebuilds the whole table.
-- Declared up front and loaded in key order, the table ends up the same, in less than half the time.
-- name: pgbench_history
create table pgbench_history(tid int,bid int,aid {{aid}},delta int,mtime datetime,filler char(22)) engine=InnoDB
-- name: pgbench_tellers
create table pgbench_tellers(tid int not null,bid int,tbalance int,filler char(84),primary key (tid)) engine=InnoDB
-- name: pgbench_accounts
create table pgbench_accounts(aid {{aid}} not null,bid int,abalance int,filler char(84),primary key (aid)) engine=InnoDB
-- name: pgbench_branches
create table pgbench_branches(bid int not null,bbalance int,filler char(88),primary key (bid)) engine=InnoDB
