-- Statistics, after the load. The load session, the meta table and the schema
-- bookkeeping are shared by every workload: internal/workload/sql.
-- name: analyze
ANALYZE
