-- name: tables
DROP TABLE IF EXISTS warehouse, district, customer, history, new_order, orders, order_line, item, stock, cairn_tpcc_meta CASCADE
-- name: functions
DROP FUNCTION IF EXISTS tpcc_neword, tpcc_payment, tpcc_ostat, tpcc_delivery, tpcc_slev
