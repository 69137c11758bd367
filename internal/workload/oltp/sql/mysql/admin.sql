-- Bookkeeping: which sbtest tables exist, and the meta table that marks a finished prepare.
-- name: tables_present
SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()
  AND (table_name LIKE 'sbtest%' OR table_name = 'cairn_oltp_meta')
-- name: meta_create
CREATE TABLE cairn_oltp_meta (k varchar(64) PRIMARY KEY, v varchar(4000)) ENGINE=InnoDB
-- name: meta_get
SELECT v FROM cairn_oltp_meta WHERE k = ?
-- name: meta_put
REPLACE INTO cairn_oltp_meta (k, v) VALUES (?, ?)
-- name: meta_drop
DROP TABLE IF EXISTS cairn_oltp_meta
-- name: load_session
SET unique_checks = 0
