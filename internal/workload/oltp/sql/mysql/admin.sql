-- The session settings of the load connections. (The meta table and the schema bookkeeping are
-- shared by every workload: internal/workload/sql.)
-- name: load_session
SET unique_checks = 0
