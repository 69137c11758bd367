-- Everything prepare creates, and nothing else (the indexes go with their tables).
-- name: accounts
DROP TABLE IF EXISTS pgbench_accounts
-- name: branches
DROP TABLE IF EXISTS pgbench_branches
-- name: tellers
DROP TABLE IF EXISTS pgbench_tellers
-- name: history
DROP TABLE IF EXISTS pgbench_history
-- name: meta
DROP TABLE IF EXISTS cairn_tpcb_meta
