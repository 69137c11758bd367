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
-- unique_checks stays on: on MariaDB 10.6+ unique_checks = 0 (with foreign_key_checks = 0) makes
-- the first insert into an empty table start InnoDB's bulk insert, which buffers the transaction's
-- rows in sort buffers and temporary files and builds the index from them at commit. Every cairn
-- loader sends rows in key order, which the row-by-row insert takes cheaply: the bulk path cost
-- the server about twice the CPU for the rows it took (one TPC-C warehouse's order_line, stock and
-- customer into empty tables: 3.2-3.4 s against 1.6-1.7 s). No table has a secondary unique index
-- during a load, so unique_checks = 0 saved nothing else.
-- name: load_session
SET foreign_key_checks = 0
-- The bytes a table's data and indexes hold, as information_schema gives them (InnoDB's own
-- estimate, refreshed by its statistics: Survey words the sum "about").
-- name: table_bytes
SELECT CAST(COALESCE(SUM(data_length + index_length), 0) AS SIGNED) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'NAME'
