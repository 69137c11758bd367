-- name: tables
DROP TABLE IF EXISTS warehouse, district, customer, history, new_order, orders, order_line, item, stock, cairn_tpcc_meta
-- name: neword
DROP PROCEDURE IF EXISTS tpcc_neword
-- name: payment
DROP PROCEDURE IF EXISTS tpcc_payment
-- name: ostat
DROP PROCEDURE IF EXISTS tpcc_ostat
-- name: delivery
DROP PROCEDURE IF EXISTS tpcc_delivery
-- name: slev
DROP PROCEDURE IF EXISTS tpcc_slev
