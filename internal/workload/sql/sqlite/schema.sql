-- What every workload's schema bookkeeping needs (workload/schema.go): the tables of the file, the
-- meta table of one workload (META), and drops of one object (NAME). META and NAME are replaced by
-- checked identifiers, never by user input. SQLite has no stored routines.
-- name: tables
SELECT name FROM sqlite_master WHERE type IN ('table', 'view')
-- name: meta_create
CREATE TABLE META (k TEXT PRIMARY KEY, v TEXT)
-- name: meta_all
SELECT k, v FROM META
-- name: meta_put
INSERT OR REPLACE INTO META (k, v) VALUES (?, ?)
-- name: meta_delete
DELETE FROM META WHERE k = ?
-- name: drop_table
DROP TABLE IF EXISTS NAME
-- name: after_cleanup
VACUUM
-- The session settings of every loading connection, whatever the workload (LoadSession).
-- name: load_session
PRAGMA synchronous = OFF
-- The bytes of the pages a table and its indexes use (Survey's size of a schema).
-- name: table_bytes
SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name = 'NAME' OR name IN (SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'NAME')
