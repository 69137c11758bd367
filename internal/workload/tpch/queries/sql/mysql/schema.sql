-- TPC-H tables for MySQL and MariaDB (InnoDB), columns in the order dbgen writes them. Money and
-- quantities are DECIMAL(15,2) (exact, clause 1.3.1), dates are DATE; the order keys are BIGINT so
-- that scale factors above 300 fit. latin1_bin: dbgen writes ASCII, the loader sends latin1, and a
-- binary collation compares and sorts case-sensitively, as the queries' LIKE patterns expect.
-- No keys here: InnoDB rebuilds the table once when indexes.sql adds the primary key and the
-- secondary indexes in one ALTER per table, which is faster than loading into a keyed table.
-- name: region
CREATE TABLE region (
  r_regionkey int NOT NULL, r_name varchar(25) NOT NULL, r_comment varchar(152)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_bin
-- name: nation
CREATE TABLE nation (
  n_nationkey int NOT NULL, n_name varchar(25) NOT NULL, n_regionkey int NOT NULL,
  n_comment varchar(152)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_bin
-- name: supplier
CREATE TABLE supplier (
  s_suppkey int NOT NULL, s_name varchar(25) NOT NULL, s_address varchar(40) NOT NULL,
  s_nationkey int NOT NULL, s_phone varchar(15) NOT NULL, s_acctbal decimal(15,2) NOT NULL,
  s_comment varchar(101) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_bin
-- name: customer
CREATE TABLE customer (
  c_custkey int NOT NULL, c_name varchar(25) NOT NULL, c_address varchar(40) NOT NULL,
  c_nationkey int NOT NULL, c_phone varchar(15) NOT NULL, c_acctbal decimal(15,2) NOT NULL,
  c_mktsegment varchar(10) NOT NULL, c_comment varchar(117) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_bin
-- name: part
CREATE TABLE part (
  p_partkey int NOT NULL, p_name varchar(55) NOT NULL, p_mfgr varchar(25) NOT NULL,
  p_brand varchar(10) NOT NULL, p_type varchar(25) NOT NULL, p_size int NOT NULL,
  p_container varchar(10) NOT NULL, p_retailprice decimal(15,2) NOT NULL,
  p_comment varchar(23) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_bin
-- name: partsupp
CREATE TABLE partsupp (
  ps_partkey int NOT NULL, ps_suppkey int NOT NULL, ps_availqty int NOT NULL,
  ps_supplycost decimal(15,2) NOT NULL, ps_comment varchar(199) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_bin
-- name: orders
CREATE TABLE orders (
  o_orderkey bigint NOT NULL, o_custkey int NOT NULL, o_orderstatus char(1) NOT NULL,
  o_totalprice decimal(15,2) NOT NULL, o_orderdate date NOT NULL,
  o_orderpriority varchar(15) NOT NULL, o_clerk varchar(15) NOT NULL,
  o_shippriority int NOT NULL, o_comment varchar(79) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_bin
-- name: lineitem
CREATE TABLE lineitem (
  l_orderkey bigint NOT NULL, l_partkey int NOT NULL, l_suppkey int NOT NULL,
  l_linenumber int NOT NULL, l_quantity decimal(15,2) NOT NULL,
  l_extendedprice decimal(15,2) NOT NULL, l_discount decimal(15,2) NOT NULL,
  l_tax decimal(15,2) NOT NULL, l_returnflag char(1) NOT NULL, l_linestatus char(1) NOT NULL,
  l_shipdate date NOT NULL, l_commitdate date NOT NULL, l_receiptdate date NOT NULL,
  l_shipinstruct varchar(25) NOT NULL, l_shipmode varchar(10) NOT NULL,
  l_comment varchar(44) NOT NULL
) ENGINE=InnoDB DEFAULT CHARSET=latin1 COLLATE=latin1_bin
