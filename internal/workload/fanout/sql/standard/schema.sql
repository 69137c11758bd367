-- The original's table (pause-instruction-sharded-mysql): one row per employee and month of a
-- kind of insurance; emp_arr_amt is an amount in cents, so the sums compare exactly on every database.
-- name: create_table
CREATE TABLE fanout_t (id BIGINT NOT NULL PRIMARY KEY, insutype INTEGER NOT NULL, revs_flag CHAR(1) NOT NULL, accrym INTEGER NOT NULL, emp_no BIGINT NOT NULL, emp_arr_amt BIGINT NOT NULL)
-- An index that serves the statement: all four equalities.
-- name: create_index
CREATE INDEX fanout_t_k ON fanout_t (insutype, revs_flag, accrym, emp_no)
