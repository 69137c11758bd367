-- The statements of the target conformance suite (conformance_test.go) that differ between
-- dialects. A database close to one we have needs a file only where it differs (the dialect's
-- Base chain is searched).
-- name: create
CREATE TABLE cairn_conformance (id integer PRIMARY KEY, v bigint, m numeric(12,2), f numeric(12,4), s varchar(40), t timestamp, n integer)
-- name: raise_rollback
DO $$ BEGIN RAISE EXCEPTION 'cairn: expected rollback'; END $$
-- name: backend
SELECT pg_backend_pid()
-- name: kill
SELECT pg_terminate_backend(ID)
