-- Built after the load, one ALTER per table so that InnoDB rebuilds each table once: the primary
-- keys of clause 1.4.2 (InnoDB clusters rows by them) and indexes on the foreign-key columns
-- (clause 1.4.2.4) that the joins and correlated subqueries of the 22 queries need: lineitem
-- (l_partkey, l_suppkey) is the foreign key to partsupp and serves Q9, Q17 and Q20; l_suppkey
-- serves Q5, Q7 and Q21; o_custkey serves Q13 and Q22; ps_suppkey serves Q11 and Q16.
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
ALTER TABLE orders ADD PRIMARY KEY (o_orderkey), ADD INDEX orders_customer (o_custkey)
-- name: lineitem
ALTER TABLE lineitem ADD PRIMARY KEY (l_orderkey, l_linenumber),
  ADD INDEX lineitem_part_supplier (l_partkey, l_suppkey), ADD INDEX lineitem_supplier (l_suppkey)
