-- What every workload's schema bookkeeping needs (workload/schema.go): the tables and routines of
-- the current database, the meta table of one workload (META), and drops of one object (NAME).
-- META and NAME are replaced by checked identifiers, never by user input.
-- name: tables
SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()
-- name: routines
SELECT routine_name FROM information_schema.routines WHERE routine_schema = DATABASE()
-- name: meta_create
CREATE TABLE META (k varchar(64) PRIMARY KEY, v varchar(4000)) ENGINE=InnoDB
-- name: meta_all
SELECT k, v FROM META
-- name: meta_put
REPLACE INTO META (k, v) VALUES (?, ?)
-- name: meta_delete
DELETE FROM META WHERE k = ?
-- name: drop_table
DROP TABLE IF EXISTS NAME
-- name: drop_routine
DROP PROCEDURE IF EXISTS NAME
-- The session settings of every loading connection, whatever the workload (LoadSession).
-- name: load_session
SET unique_checks = 0, foreign_key_checks = 0
