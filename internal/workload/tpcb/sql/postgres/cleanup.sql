-- Everything prepare creates, and nothing else.
-- name: tables
DROP TABLE IF EXISTS pgbench_accounts, pgbench_branches, pgbench_tellers, pgbench_history, cairn_tpcb_meta
