-- The statements of the target conformance suite (conformance_test.go) that differ between
-- dialects (MariaDB uses these too, through its Base).
-- name: create
CREATE TABLE cairn_conformance (id integer PRIMARY KEY, v bigint, m decimal(12,2), f decimal(12,4), s varchar(40), t datetime, n integer) ENGINE = InnoDB
-- name: raise_rollback
SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'cairn: expected rollback'
-- name: backend
SELECT CONNECTION_ID()
-- name: kill
KILL ID
