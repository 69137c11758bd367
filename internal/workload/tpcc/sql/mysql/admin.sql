-- The session settings of the load connections, and statistics. (The meta table and the schema
-- bookkeeping are shared by every workload: internal/workload/sql.)
-- name: load_session
SET unique_checks = 0, foreign_key_checks = 0
-- name: analyze
ANALYZE TABLE warehouse, district, customer, history, new_order, orders, order_line, item, stock
