-- The server-side transactions (--mode procs) as prepared calls; the parameters are those of
-- procs.go's call(...) in the same order. Each returns one row of one column.
-- name: p_neword
SELECT tpcc_neword($1, $2, $3, $4, $5, $6, $7)
-- name: p_payment
SELECT tpcc_payment($1, $2, $3, $4, $5, $6, $7, $8)
-- name: p_ostat
SELECT tpcc_ostat($1, $2, $3, $4, $5)
-- name: p_delivery
SELECT tpcc_delivery($1, $2)
-- name: p_slev
SELECT tpcc_slev($1, $2, $3)
