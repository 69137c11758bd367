-- The original's statement. :insutype, :revs_flag, :accrym and :emp_no become parameters with
-- --protocol prepared, and literals written by cairn (digits and one letter) with --protocol
-- commented, which appends the request's id as /* cairn-req=ID */.
-- name: select
SELECT SUM(emp_arr_amt) FROM fanout_t WHERE insutype=:insutype AND revs_flag=:revs_flag AND accrym=:accrym AND emp_no=:emp_no
-- name: check
SELECT COUNT(*), COALESCE(SUM(emp_arr_amt), 0), COALESCE(MIN(id), 0), COALESCE(MAX(id), 0) FROM fanout_t
