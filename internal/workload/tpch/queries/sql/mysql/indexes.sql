-- Built after the load, one ALTER per table so that InnoDB rebuilds each table once: the primary
-- keys of clause 1.4.2.2 (InnoDB clusters rows by them), and indexes on foreign-key columns
-- (clause 1.4.2.3) and date columns, the only other ones clause 1.5.7 allows. lineitem
-- (l_partkey, l_suppkey) is the foreign key to partsupp and serves Q9, Q17 and Q20; l_suppkey
-- serves Q5, Q7 and Q21; o_custkey serves Q13 and Q22; ps_suppkey serves Q11 and Q16. Without
-- l_shipdate MariaDB drives Q14 from part through lineitem (l_partkey), 40 times slower at SF 1,
-- and scans lineitem in l_suppkey order for Q15; o_orderdate makes Q10 ten times faster.
-- name: region
ALTER TABLE region ADD PRIMARY KEY (r_regionkey)
-- name: nation
ALTER TABLE nation ADD PRIMARY KEY (n_nationkey), ADD INDEX nation_region (n_regionkey)
-- name: supplier
ALTER TABLE supplier ADD PRIMARY KEY (s_suppkey), ADD INDEX supplier_nation (s_nationkey)
-- name: customer
ALTER TABLE customer ADD PRIMARY KEY (c_custkey), ADD INDEX customer_nation (c_nationkey)
-- name: part
ALTER TABLE part ADD PRIMARY KEY (p_partkey)
-- name: partsupp
ALTER TABLE partsupp ADD PRIMARY KEY (ps_partkey, ps_suppkey), ADD INDEX partsupp_supplier (ps_suppkey)
-- name: orders
ALTER TABLE orders ADD PRIMARY KEY (o_orderkey), ADD INDEX orders_customer (o_custkey),
  ADD INDEX orders_date (o_orderdate)
-- name: lineitem
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber),
  ADD INDEX lineitem_part_supplier (l_partkey, l_suppkey), ADD INDEX lineitem_supplier (l_suppkey),
  ADD INDEX lineitem_shipdate (l_shipdate)
