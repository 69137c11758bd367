-- The statements of the target conformance suite (conformance_test.go) that differ between
-- dialects. SQLite runs inside cairn: it has no server-side code to raise a rollback and no
-- connection to lose.
-- name: create
CREATE TABLE cairn_conformance (id integer PRIMARY KEY, v bigint, m numeric(12,2), f numeric(12,4), s varchar(40), t timestamp, n integer)
