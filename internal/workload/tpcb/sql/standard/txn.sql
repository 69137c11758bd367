-- The SQL commands of pgbench's built-in scripts (builtin_script[] in pgbench.c of PostgreSQL 15),
-- verbatim, as every dialect runs them unless its folder's txn.sql has a statement of the same name
-- (internal/sqlfile). :aid, :bid, :tid and :delta are the scripts' \set variables: with --protocol
-- prepared each becomes a parameter ($1, $2, … or ?, in order of appearance, as pgbench -M prepared
-- numbers them), with --protocol simple its value is written into the text (pgbench -M simple).
-- name: begin
BEGIN
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
