-- The session settings of the load connections, and statistics. (The meta table and the schema
-- bookkeeping are shared by every workload: internal/workload/sql.)
-- name: load_session
SET synchronous_commit = off
-- name: analyze
ANALYZE warehouse, district, customer, history, new_order, orders, order_line, item, stock
