-- Drops everything the schema and the queries create. The queries create no views (Q15 is written
-- with a common table expression), so only the tables remain to drop.
-- name: tables
DROP TABLE IF EXISTS lineitem, orders, partsupp, part, customer, supplier, nation, region
