-- The balances' invariants: every transaction of tpcb-like and simple-update adds its delta to one
-- account and records it in pgbench_history; tpcb-like also adds it to one teller and one branch.
-- name: sums
SELECT (SELECT COALESCE(SUM(abalance), 0) FROM pgbench_accounts),
       (SELECT COALESCE(SUM(tbalance), 0) FROM pgbench_tellers),
       (SELECT COALESCE(SUM(bbalance), 0) FROM pgbench_branches),
       (SELECT COALESCE(SUM(delta), 0) FROM pgbench_history),
       (SELECT COUNT(*) FROM pgbench_history)
