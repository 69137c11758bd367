-- The statements of sysbench 1.0.20's oltp_common.lua (stmt_defs), verbatim (sysbench has no
-- SQLite driver). {{n}} is the table number: every statement is prepared once per table. Every
-- dialect's file has the same names with the same parameters in the same order.
-- name: point_select
SELECT c FROM sbtest{{n}} WHERE id=?
-- name: simple_range
SELECT c FROM sbtest{{n}} WHERE id BETWEEN ? AND ?
-- name: sum_range
SELECT SUM(k) FROM sbtest{{n}} WHERE id BETWEEN ? AND ?
-- name: order_range
SELECT c FROM sbtest{{n}} WHERE id BETWEEN ? AND ? ORDER BY c
-- name: distinct_range
SELECT DISTINCT c FROM sbtest{{n}} WHERE id BETWEEN ? AND ? ORDER BY c
-- name: index_update
UPDATE sbtest{{n}} SET k=k+1 WHERE id=?
-- name: non_index_update
UPDATE sbtest{{n}} SET c=? WHERE id=?
-- name: delete
DELETE FROM sbtest{{n}} WHERE id=?
-- name: insert
INSERT INTO sbtest{{n}} (id, k, c, pad) VALUES (?, ?, ?, ?)
-- oltp_insert.lua's statement without an id: id is the rowid, so SQLite assigns the next one.
-- name: insert_auto
INSERT INTO sbtest{{n}} (k, c, pad) VALUES (?, ?, ?)
-- A transaction that writes takes the write lock up front (a deferred one that upgrades can fail
-- with SQLITE_BUSY without waiting); one that only reads is deferred. SQLite has no READ ONLY
-- transaction: a deferred BEGIN that never writes is its equivalent.
-- name: begin
BEGIN IMMEDIATE
-- name: begin_read
BEGIN
-- name: begin_read_only
BEGIN
-- name: commit
COMMIT
