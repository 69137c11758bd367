-- Drops everything the schema and the queries create. The queries create no views (Q15 is written
-- with a common table expression), so only the tables remain to drop; their indexes go with them.
-- name: lineitem
DROP TABLE IF EXISTS lineitem
-- name: orders
DROP TABLE IF EXISTS orders
-- name: partsupp
DROP TABLE IF EXISTS partsupp
-- name: part
DROP TABLE IF EXISTS part
-- name: customer
DROP TABLE IF EXISTS customer
-- name: supplier
DROP TABLE IF EXISTS supplier
-- name: nation
DROP TABLE IF EXISTS nation
-- name: region
DROP TABLE IF EXISTS region
