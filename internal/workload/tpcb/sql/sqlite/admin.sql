-- The load session, and statistics (after the keys: SQLite's statistics describe indexes). The
-- meta table and the schema bookkeeping are shared by every workload: internal/workload/sql.
-- name: load_session
PRAGMA synchronous = OFF
-- name: analyze
ANALYZE
