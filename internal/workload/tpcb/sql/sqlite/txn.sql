-- The SQL commands of pgbench's built-in scripts (builtin_script[] in pgbench.c of PostgreSQL 15).
-- Only BEGIN differs: BEGIN IMMEDIATE takes SQLite's write lock at once, so that two writers
-- queue (busy_timeout) instead of failing with SQLITE_BUSY when a deferred transaction upgrades.
-- :aid, :bid, :tid and :delta are the scripts' \set variables: with --protocol prepared each
-- becomes a ? parameter, with --protocol simple its value is written into the text.
-- name: begin
BEGIN IMMEDIATE
-- name: accounts_update
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid
-- name: accounts_select
SELECT abalance FROM pgbench_accounts WHERE aid = :aid
-- name: tellers_update
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid
-- name: branches_update
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid
-- name: history_insert
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP)
-- name: end
END
