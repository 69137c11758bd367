-- The server-side transactions (--mode procs) as prepared CALLs; the parameters are those of
-- procs.go's call(...) in the same order. The procedures return no result sets.
-- name: p_neword
CALL tpcc_neword(?, ?, ?, ?, ?, ?, ?, ?)
-- name: p_payment
CALL tpcc_payment(?, ?, ?, ?, ?, ?, ?, ?)
-- name: p_ostat
CALL tpcc_ostat(?, ?, ?, ?, ?)
-- name: p_delivery
CALL tpcc_delivery(?, ?)
-- name: p_slev
CALL tpcc_slev(?, ?, ?)
