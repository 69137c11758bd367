-- Built after the load: the primary keys of clause 1.4.2.2, and indexes on foreign-key columns
-- (clause 1.4.2.3) and date columns, the only other ones clause 1.5.7 allows. lineitem
-- (l_partkey, l_suppkey) is the foreign key to partsupp and serves Q9, Q17 and Q20; l_suppkey
-- serves Q21; o_custkey serves Q13 and Q22; ps_suppkey serves Q11. The date indexes let the
-- planner read the date ranges of Q14 and Q15 (l_shipdate) and of Q3, Q4, Q5, Q8 and Q10
-- (o_orderdate) rather than scan; the same set as for MySQL and SQLite.
-- The final ANALYZE gives the planner statistics at once instead of waiting for autovacuum.
-- name: region
ALTER TABLE region ADD PRIMARY KEY (r_regionkey)
-- name: nation
ALTER TABLE nation ADD PRIMARY KEY (n_nationkey)
-- name: nation_region
CREATE INDEX nation_region ON nation (n_regionkey)
-- name: supplier
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey)
-- name: supplier_nation
CREATE INDEX supplier_nation ON supplier (s_nationkey)
-- name: customer
ALTER TABLE customer ADD PRIMARY KEY (c_custkey)
-- name: customer_nation
CREATE INDEX customer_nation ON customer (c_nationkey)
-- name: part
ALTER TABLE part ADD PRIMARY KEY (p_partkey)
-- name: partsupp
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey)
-- name: partsupp_supplier
CREATE INDEX partsupp_supplier ON partsupp (ps_suppkey)
-- name: orders
ALTER TABLE orders ADD PRIMARY KEY (o_orderkey)
-- name: orders_customer
CREATE INDEX orders_customer ON orders (o_custkey)
-- name: orders_date
CREATE INDEX orders_date ON orders (o_orderdate)
-- name: lineitem
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber)
-- name: lineitem_part_supplier
CREATE INDEX lineitem_part_supplier ON lineitem (l_partkey, l_suppkey)
-- name: lineitem_supplier
CREATE INDEX lineitem_supplier ON lineitem (l_suppkey)
-- name: lineitem_shipdate
CREATE INDEX lineitem_shipdate ON lineitem (l_shipdate)
-- name: analyze
ANALYZE region, nation, supplier, customer, part, partsupp, orders, lineitem
