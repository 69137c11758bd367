-- The statements of sysbench 1.0.20's oltp_common.lua (stmt_defs), verbatim. {{n}} is the table
-- number: every statement is prepared once per table, as sysbench does. Every dialect's file has
-- the same names with the same parameters in the same order.
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
-- oltp_insert.lua's statement with --auto-inc=on on mysql: id 0 makes AUTO_INCREMENT assign it.
-- name: insert_auto
INSERT INTO sbtest{{n}} (id, k, c, pad) VALUES (0, ?, ?, ?)
-- Transaction control is sent as plain text (one round trip, like sysbench's "BEGIN").
-- begin opens a transaction that writes, begin_read one that only reads, begin_read_only the
-- --read-only-trx one.
-- name: begin
BEGIN
-- name: begin_read
BEGIN
-- name: begin_read_only
START TRANSACTION READ ONLY
-- name: commit
COMMIT
