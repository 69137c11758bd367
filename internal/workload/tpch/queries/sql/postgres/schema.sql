-- TPC-H tables for PostgreSQL (clause 1.4), columns in the order dbgen writes them. Money and
-- quantities are numeric(15,2) (exact decimals, clause 1.3.1), dates are date. Identifiers are
-- integer except the order keys, which are bigint so that scale factors above 300 fit.
-- Text columns are varchar, not char(N): char pads with blanks, which the answers would carry.
-- No keys here: they are built after the load (indexes.sql).
-- name: region
CREATE TABLE region (
  r_regionkey integer NOT NULL, r_name varchar(25) NOT NULL, r_comment varchar(152)
)
-- name: nation
CREATE TABLE nation (
  n_nationkey integer NOT NULL, n_name varchar(25) NOT NULL, n_regionkey integer NOT NULL,
  n_comment varchar(152)
)
-- name: supplier
CREATE TABLE supplier (
  s_suppkey integer NOT NULL, s_name varchar(25) NOT NULL, s_address varchar(40) NOT NULL,
  s_nationkey integer NOT NULL, s_phone varchar(15) NOT NULL, s_acctbal numeric(15,2) NOT NULL,
  s_comment varchar(101) NOT NULL
)
-- name: customer
CREATE TABLE customer (
  c_custkey integer NOT NULL, c_name varchar(25) NOT NULL, c_address varchar(40) NOT NULL,
  c_nationkey integer NOT NULL, c_phone varchar(15) NOT NULL, c_acctbal numeric(15,2) NOT NULL,
  c_mktsegment varchar(10) NOT NULL, c_comment varchar(117) NOT NULL
)
-- name: part
CREATE TABLE part (
  p_partkey integer NOT NULL, p_name varchar(55) NOT NULL, p_mfgr varchar(25) NOT NULL,
  p_brand varchar(10) NOT NULL, p_type varchar(25) NOT NULL, p_size integer NOT NULL,
  p_container varchar(10) NOT NULL, p_retailprice numeric(15,2) NOT NULL,
  p_comment varchar(23) NOT NULL
)
-- name: partsupp
CREATE TABLE partsupp (
  ps_partkey integer NOT NULL, ps_suppkey integer NOT NULL, ps_availqty integer NOT NULL,
  ps_supplycost numeric(15,2) NOT NULL, ps_comment varchar(199) NOT NULL
)
-- name: orders
CREATE TABLE orders (
  o_orderkey bigint NOT NULL, o_custkey integer NOT NULL, o_orderstatus char(1) NOT NULL,
  o_totalprice numeric(15,2) NOT NULL, o_orderdate date NOT NULL,
  o_orderpriority varchar(15) NOT NULL, o_clerk varchar(15) NOT NULL,
  o_shippriority integer NOT NULL, o_comment varchar(79) NOT NULL
)
-- name: lineitem
CREATE TABLE lineitem (
  l_orderkey bigint NOT NULL, l_partkey integer NOT NULL, l_suppkey integer NOT NULL,
  l_linenumber integer NOT NULL, l_quantity numeric(15,2) NOT NULL,
  l_extendedprice numeric(15,2) NOT NULL, l_discount numeric(15,2) NOT NULL,
  l_tax numeric(15,2) NOT NULL, l_returnflag char(1) NOT NULL, l_linestatus char(1) NOT NULL,
  l_shipdate date NOT NULL, l_commitdate date NOT NULL, l_receiptdate date NOT NULL,
  l_shipinstruct varchar(25) NOT NULL, l_shipmode varchar(10) NOT NULL,
  l_comment varchar(44) NOT NULL
)
