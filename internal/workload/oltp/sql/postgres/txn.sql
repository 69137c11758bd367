-- The statements of sysbench 1.0.20's oltp_common.lua (stmt_defs) as its pgsql driver sends them:
-- the same text, with each ? numbered $n. {{n}} is the table number: every statement is prepared
-- once per table, as sysbench does. Every dialect's file has the same names with the same
-- parameters in the same order.
-- name: point_select
SELECT c FROM sbtest{{n}} WHERE id=$1
-- name: simple_range
SELECT c FROM sbtest{{n}} WHERE id BETWEEN $1 AND $2
-- name: sum_range
SELECT SUM(k) FROM sbtest{{n}} WHERE id BETWEEN $1 AND $2
-- name: order_range
SELECT c FROM sbtest{{n}} WHERE id BETWEEN $1 AND $2 ORDER BY c
-- name: distinct_range
SELECT DISTINCT c FROM sbtest{{n}} WHERE id BETWEEN $1 AND $2 ORDER BY c
-- name: index_update
UPDATE sbtest{{n}} SET k=k+1 WHERE id=$1
-- name: non_index_update
UPDATE sbtest{{n}} SET c=$1 WHERE id=$2
-- name: delete
DELETE FROM sbtest{{n}} WHERE id=$1
-- name: insert
INSERT INTO sbtest{{n}} (id, k, c, pad) VALUES ($1, $2, $3, $4)
-- oltp_insert.lua's statement with --auto-inc=on on pgsql: the id comes from the SERIAL's sequence.
-- name: insert_auto
INSERT INTO sbtest{{n}} (k, c, pad) VALUES ($1, $2, $3)
-- Transaction control is sent as plain text (one round trip, like sysbench's prepared "BEGIN").
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
