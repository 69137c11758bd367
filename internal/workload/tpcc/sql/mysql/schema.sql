-- TPC-C tables for MySQL and MariaDB (InnoDB). Money is DECIMAL (exact, clause 1.3.1).
-- Primary keys are declared here: InnoDB clusters rows by them, and the loader inserts in key
-- order, which is the fast path. Secondary indexes come after the load (indexes.sql).
-- The tables are latin1 whatever the database's default, as HammerDB's are: TPC-C's data is ASCII,
-- and a single-byte character set spares the server a UTF-8 check of every loaded string and
-- multi-byte collation in the by-name index (a 4-warehouse MariaDB load took 4.5-4.7 s instead of
-- 5.2-5.3 s; NOPM was unchanged within noise).
-- name: warehouse
CREATE TABLE warehouse (
  w_id int NOT NULL, w_name varchar(10), w_street_1 varchar(20), w_street_2 varchar(20),
  w_city varchar(20), w_state char(2), w_zip char(9), w_tax decimal(4,4), w_ytd decimal(12,2),
  PRIMARY KEY (w_id)
) ENGINE=InnoDB DEFAULT CHARSET=latin1
-- name: district
CREATE TABLE district (
  d_id tinyint NOT NULL, d_w_id int NOT NULL, d_name varchar(10), d_street_1 varchar(20),
  d_street_2 varchar(20), d_city varchar(20), d_state char(2), d_zip char(9), d_tax decimal(4,4),
  d_ytd decimal(12,2), d_next_o_id int, PRIMARY KEY (d_w_id, d_id)
) ENGINE=InnoDB DEFAULT CHARSET=latin1
-- name: customer
CREATE TABLE customer (
  c_id int NOT NULL, c_d_id tinyint NOT NULL, c_w_id int NOT NULL, c_first varchar(16),
  c_middle char(2), c_last varchar(16), c_street_1 varchar(20), c_street_2 varchar(20),
  c_city varchar(20), c_state char(2), c_zip char(9), c_phone char(16), c_since datetime,
  c_credit char(2), c_credit_lim decimal(12,2), c_discount decimal(4,4), c_balance decimal(12,2),
  c_ytd_payment decimal(12,2), c_payment_cnt int, c_delivery_cnt int, c_data varchar(500),
  PRIMARY KEY (c_w_id, c_d_id, c_id)
) ENGINE=InnoDB DEFAULT CHARSET=latin1
-- name: history
CREATE TABLE history (
  h_c_id int, h_c_d_id tinyint, h_c_w_id int, h_d_id tinyint, h_w_id int, h_date datetime,
  h_amount decimal(6,2), h_data varchar(24)
) ENGINE=InnoDB DEFAULT CHARSET=latin1
-- name: new_order
CREATE TABLE new_order (
  no_o_id int NOT NULL, no_d_id tinyint NOT NULL, no_w_id int NOT NULL,
  PRIMARY KEY (no_w_id, no_d_id, no_o_id)
) ENGINE=InnoDB DEFAULT CHARSET=latin1
-- name: orders
CREATE TABLE orders (
  o_id int NOT NULL, o_d_id tinyint NOT NULL, o_w_id int NOT NULL, o_c_id int, o_entry_d datetime,
  o_carrier_id tinyint, o_ol_cnt tinyint, o_all_local tinyint, PRIMARY KEY (o_w_id, o_d_id, o_id)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 PARTITION_ORDERS
-- name: order_line
CREATE TABLE order_line (
  ol_o_id int NOT NULL, ol_d_id tinyint NOT NULL, ol_w_id int NOT NULL, ol_number tinyint NOT NULL,
  ol_i_id int, ol_supply_w_id int, ol_delivery_d datetime, ol_quantity tinyint,
  ol_amount decimal(6,2), ol_dist_info char(24), PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number)
) ENGINE=InnoDB DEFAULT CHARSET=latin1 PARTITION_ORDER_LINE
-- name: item
CREATE TABLE item (
  i_id int NOT NULL, i_im_id int, i_name varchar(24), i_price decimal(5,2), i_data varchar(50),
  PRIMARY KEY (i_id)
) ENGINE=InnoDB DEFAULT CHARSET=latin1
-- name: stock
CREATE TABLE stock (
  s_i_id int NOT NULL, s_w_id int NOT NULL, s_quantity smallint, s_dist_01 char(24),
  s_dist_02 char(24), s_dist_03 char(24), s_dist_04 char(24), s_dist_05 char(24),
  s_dist_06 char(24), s_dist_07 char(24), s_dist_08 char(24), s_dist_09 char(24),
  s_dist_10 char(24), s_ytd int, s_order_cnt smallint, s_remote_cnt smallint, s_data varchar(50),
  PRIMARY KEY (s_w_id, s_i_id)
) ENGINE=InnoDB DEFAULT CHARSET=latin1
