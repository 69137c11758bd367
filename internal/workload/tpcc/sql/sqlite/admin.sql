-- The session settings of the load connections, and statistics. (The meta table and the schema
-- bookkeeping are shared by every workload: internal/workload/sql.)
-- name: load_session
PRAGMA synchronous = OFF
-- name: analyze
ANALYZE
