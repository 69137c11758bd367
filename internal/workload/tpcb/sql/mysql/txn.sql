-- pgbench's script commands whose MySQL and MariaDB text differs from sql/standard/txn.sql: only
-- END, which they spell COMMIT.
-- name: end
COMMIT
