-- What every workload's schema bookkeeping needs (workload/schema.go): the tables and routines of
-- the current schema, the meta table of one workload (META), and drops of one object (NAME). META
-- and NAME are replaced by checked identifiers, never by user input.
-- name: tables
SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()
-- name: routines
SELECT routine_name::text FROM information_schema.routines WHERE routine_schema = current_schema()
-- name: meta_create
CREATE TABLE META (k varchar(64) PRIMARY KEY, v varchar(4000))
-- name: meta_all
SELECT k, v FROM META
-- name: meta_put
INSERT INTO META (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v
-- name: meta_delete
DELETE FROM META WHERE k = $1
-- name: drop_table
DROP TABLE IF EXISTS NAME
-- name: drop_routine
DROP FUNCTION IF EXISTS NAME
-- The session settings of every loading connection, whatever the workload (LoadSession).
-- name: load_session
SET synchronous_commit = off
-- The bytes a table and its indexes and TOAST hold on disk (Survey's size of a schema).
-- name: table_bytes
SELECT COALESCE(pg_total_relation_size(to_regclass('NAME')), 0)::bigint
