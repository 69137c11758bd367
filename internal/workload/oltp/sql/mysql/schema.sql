-- The sbtest tables of sysbench 1.0.20's oltp_common.lua (create_table) for its mysql driver, with
-- sysbench's defaults (--auto-inc=on, --secondary=off, --mysql-storage-engine=innodb,
-- --create-secondary=on: the index on k, built after the load). {{n}} is the table number.
-- LOAD DATA with explicit ids moves AUTO_INCREMENT past the largest, so oltp_insert's rows follow.
-- name: create_table
CREATE TABLE sbtest{{n}}(
  id INTEGER NOT NULL AUTO_INCREMENT,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL,
  PRIMARY KEY (id)
) /*! ENGINE = innodb */
-- name: create_index
CREATE INDEX k_{{n}} ON sbtest{{n}}(k)
-- name: analyze
ANALYZE TABLE sbtest{{n}}
