-- The sbtest tables of sysbench 1.0.20's oltp_common.lua (create_table), which has no SQLite
-- driver: the same columns and keys. "id INTEGER … PRIMARY KEY (id)" makes id the rowid, so an
-- INSERT without id takes the next one, as AUTO_INCREMENT and SERIAL do. SQLite does not pad
-- CHAR(n) values; the values are the same as on the other databases, only not padded with blanks.
-- name: create_table
CREATE TABLE sbtest{{n}}(
  id INTEGER NOT NULL,
  k INTEGER DEFAULT '0' NOT NULL,
  c CHAR(120) DEFAULT '' NOT NULL,
  pad CHAR(60) DEFAULT '' NOT NULL,
  PRIMARY KEY (id)
)
-- name: create_index
CREATE INDEX k_{{n}} ON sbtest{{n}}(k)
-- name: analyze
ANALYZE sbtest{{n}}
