-- Bookkeeping: which sbtest tables exist, and the meta table that marks a finished prepare.
-- name: tables_present
SELECT name FROM sqlite_master WHERE type = 'table' AND (name LIKE 'sbtest%' OR name = 'cairn_oltp_meta')
-- name: meta_create
CREATE TABLE cairn_oltp_meta (k TEXT PRIMARY KEY, v TEXT)
-- name: meta_get
SELECT v FROM cairn_oltp_meta WHERE k = ?
-- name: meta_put
INSERT OR REPLACE INTO cairn_oltp_meta (k, v) VALUES (?, ?)
-- name: meta_drop
DROP TABLE IF EXISTS cairn_oltp_meta
-- name: load_session
PRAGMA synchronous = OFF
