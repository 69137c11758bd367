-- pgbench's script commands whose SQLite text differs from sql/standard/txn.sql: only BEGIN.
-- BEGIN IMMEDIATE takes SQLite's write lock at once, so that two writers queue (busy_timeout)
-- instead of failing with SQLITE_BUSY when a deferred transaction upgrades.
-- name: begin
BEGIN IMMEDIATE
