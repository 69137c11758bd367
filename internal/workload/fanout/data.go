package fanout

// The data is a function of the seed, the shard's place in the set and the row: any shard's rows,
// and the sum any request must get back, are computed without reading the database.

// perEmp is the rows of one employee: the rows one statement sums.
const perEmp = 4

// emps is the number of employees of a shard of rows rows.
func emps(rows int) int64 { return int64((rows + perEmp - 1) / perEmp) }

// keyOf is employee e's insurance type, revision flag and month: the statement's other three
// equalities.
func keyOf(e int64) (insutype int64, flag byte, accrym int64) {
	return 310 + e%3, "ZN"[e%2], 202401 + e%12
}

// amount is row id's emp_arr_amt in shard shard, in cents (1 to 1,000,000).
func amount(seed uint64, shard int, id int64) int64 {
	x := seed ^ uint64(shard+1)*0x9e3779b97f4a7c15 ^ uint64(id)*0xbf58476d1ce4e5b9
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return int64(x%1_000_000) + 1
}

// expected is what SELECT SUM(emp_arr_amt) … emp_no=e returns on shard shard.
func expected(seed uint64, shard, rows int, e int64) int64 {
	var s int64
	for id := e * perEmp; id < min((e+1)*perEmp, int64(rows)); id++ {
		s += amount(seed, shard, id)
	}
	return s
}

// total is the sum of every row of shard shard.
func total(seed uint64, shard, rows int) int64 {
	var s int64
	for id := int64(0); id < int64(rows); id++ {
		s += amount(seed, shard, id)
	}
	return s
}
