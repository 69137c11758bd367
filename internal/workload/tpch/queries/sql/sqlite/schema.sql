-- TPC-H tables for SQLite, columns in the order dbgen writes them. SQLite has no exact decimal
-- type: money and quantities are REAL (the loader's "123.45" text becomes the nearest double, the
-- sums stay far inside the $100 of clause 2.1.3.5, and whole quantities such as "17.00" stay
-- exact, so SUM(l_quantity) is exact). Dates are TEXT 'YYYY-MM-DD', which compares and sorts
-- like a date; the queries shift them with date(…, '+N month'). No keys here: indexes.sql adds
-- them after the load (SQLite cannot add a primary key later, so they are unique indexes).
-- name: region
CREATE TABLE region (
  r_regionkey INTEGER NOT NULL, r_name TEXT NOT NULL, r_comment TEXT
)
-- name: nation
CREATE TABLE nation (
  n_nationkey INTEGER NOT NULL, n_name TEXT NOT NULL, n_regionkey INTEGER NOT NULL,
  n_comment TEXT
)
-- name: supplier
CREATE TABLE supplier (
  s_suppkey INTEGER NOT NULL, s_name TEXT NOT NULL, s_address TEXT NOT NULL,
  s_nationkey INTEGER NOT NULL, s_phone TEXT NOT NULL, s_acctbal REAL NOT NULL,
  s_comment TEXT NOT NULL
)
-- name: customer
CREATE TABLE customer (
  c_custkey INTEGER NOT NULL, c_name TEXT NOT NULL, c_address TEXT NOT NULL,
  c_nationkey INTEGER NOT NULL, c_phone TEXT NOT NULL, c_acctbal REAL NOT NULL,
  c_mktsegment TEXT NOT NULL, c_comment TEXT NOT NULL
)
-- name: part
CREATE TABLE part (
  p_partkey INTEGER NOT NULL, p_name TEXT NOT NULL, p_mfgr TEXT NOT NULL,
  p_brand TEXT NOT NULL, p_type TEXT NOT NULL, p_size INTEGER NOT NULL,
  p_container TEXT NOT NULL, p_retailprice REAL NOT NULL, p_comment TEXT NOT NULL
)
-- name: partsupp
CREATE TABLE partsupp (
  ps_partkey INTEGER NOT NULL, ps_suppkey INTEGER NOT NULL, ps_availqty INTEGER NOT NULL,
  ps_supplycost REAL NOT NULL, ps_comment TEXT NOT NULL
)
-- name: orders
CREATE TABLE orders (
  o_orderkey INTEGER NOT NULL, o_custkey INTEGER NOT NULL, o_orderstatus TEXT NOT NULL,
  o_totalprice REAL NOT NULL, o_orderdate TEXT NOT NULL, o_orderpriority TEXT NOT NULL,
  o_clerk TEXT NOT NULL, o_shippriority INTEGER NOT NULL, o_comment TEXT NOT NULL
)
-- name: lineitem
CREATE TABLE lineitem (
  l_orderkey INTEGER NOT NULL, l_partkey INTEGER NOT NULL, l_suppkey INTEGER NOT NULL,
  l_linenumber INTEGER NOT NULL, l_quantity REAL NOT NULL, l_extendedprice REAL NOT NULL,
  l_discount REAL NOT NULL, l_tax REAL NOT NULL, l_returnflag TEXT NOT NULL,
  l_linestatus TEXT NOT NULL, l_shipdate TEXT NOT NULL, l_commitdate TEXT NOT NULL,
  l_receiptdate TEXT NOT NULL, l_shipinstruct TEXT NOT NULL, l_shipmode TEXT NOT NULL,
  l_comment TEXT NOT NULL
)
