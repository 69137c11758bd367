-- The sbtest tables of sysbench 1.0.20's oltp_common.lua (create_table) for its pgsql driver, with
-- sysbench's defaults (--auto-inc=on: id SERIAL; --secondary=off: PRIMARY KEY (id);
-- --create-secondary=on: the index on k, built after the load). {{n}} is the table number,
-- {{size}} the rows per table.
-- name: create_table
CREATE TABLE sbtest{{n}}(
  id SERIAL,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL,
  PRIMARY KEY (id)
)
-- COPY writes explicit ids and leaves the sequence at 1; sysbench's INSERTs without id leave it at
-- the table size, which is where oltp_insert's new rows continue.
-- name: after_load
SELECT setval('sbtest{{n}}_id_seq', {{size}})
-- name: create_index
CREATE INDEX k_{{n}} ON sbtest{{n}}(k)
-- name: analyze
ANALYZE sbtest{{n}}
