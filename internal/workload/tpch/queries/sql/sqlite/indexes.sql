-- Built after the load: the primary keys of clause 1.4.2.2 as unique indexes (SQLite cannot add
-- a primary key to an existing table), and indexes on foreign-key columns (clause 1.4.2.3) and
-- date columns, the only other ones clause 1.5.7 allows; the same set as for the servers.
-- ANALYZE gives the planner statistics.
-- name: region
CREATE UNIQUE INDEX region_pk ON region (r_regionkey)
-- name: nation
CREATE UNIQUE INDEX nation_pk ON nation (n_nationkey)
-- name: nation_region
CREATE INDEX nation_region ON nation (n_regionkey)
-- name: supplier
CREATE UNIQUE INDEX supplier_pk ON supplier (s_suppkey)
-- name: supplier_nation
CREATE INDEX supplier_nation ON supplier (s_nationkey)
-- name: customer
CREATE UNIQUE INDEX customer_pk ON customer (c_custkey)
-- name: customer_nation
CREATE INDEX customer_nation ON customer (c_nationkey)
-- name: part
CREATE UNIQUE INDEX part_pk ON part (p_partkey)
-- name: partsupp
CREATE UNIQUE INDEX partsupp_pk ON partsupp (ps_partkey, ps_suppkey)
-- name: partsupp_supplier
CREATE INDEX partsupp_supplier ON partsupp (ps_suppkey)
-- name: orders
CREATE UNIQUE INDEX orders_pk ON orders (o_orderkey)
-- name: orders_customer
CREATE INDEX orders_customer ON orders (o_custkey)
-- name: orders_date
CREATE INDEX orders_date ON orders (o_orderdate)
-- name: lineitem
CREATE UNIQUE INDEX lineitem_pk ON lineitem (l_orderkey, l_linenumber)
-- name: lineitem_part_supplier
CREATE INDEX lineitem_part_supplier ON lineitem (l_partkey, l_suppkey)
-- name: lineitem_supplier
CREATE INDEX lineitem_supplier ON lineitem (l_suppkey)
-- name: lineitem_shipdate
CREATE INDEX lineitem_shipdate ON lineitem (l_shipdate)
-- name: analyze
ANALYZE
