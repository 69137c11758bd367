package dbgen

// Refresh data: dbgen -U. Update set n (1-based) inserts RefreshOrders new orders with their lines
// (RF1) and deletes as many existing ones (RF2). The new rows continue every random stream where
// the base data stopped, set after set; their keys fill the gaps the sparse base keys leave.

// RefreshOrders is the number of orders one update set inserts and deletes: 0.1% of the orders,
// computed as dbgen computes it (base/10000·scale·10, in integers).
func RefreshOrders(sf float64) int64 {
	if sf < 1 {
		return rowsFor(1_500_000, sf) / 10000 * 10
	}
	return 1_500_000 / 10000 * int64(sf) * 10
}

// refreshSeq is the sparse-key sequence of update set n's new orders; dbgen's RF2 of set n deletes
// keys of sequence n/1000 (the base data for the first 999 sets).
func refreshSeq(n int) int64 { return 1 + int64(n)/1000 }

// AppendRefresh formats update set n's new rows of table ("orders" or "lineitem"), as dbgen writes
// TABLE.tbl.uN, and returns the buffer and the row count.
func AppendRefresh(b []byte, table string, sf float64, n int) ([]byte, int64) {
	per := RefreshOrders(sf)
	first := int64(n-1) * per // index of the set's first order, before the +1
	skip := rowsFor(1_500_000, sf) + first
	d, pool := loadDists(), textPool()
	var g unitGen
	switch table {
	case "orders":
		o := newOrdersGen(sf, d, pool)
		o.advance(skip)
		o.seq = refreshSeq(n)
		g = o
	case "lineitem":
		l := newLineitemGen(sf, d, pool)
		l.advance(skip)
		l.seq = refreshSeq(n)
		g = l
	default:
		panic("dbgen: refresh data exists only for orders and lineitem, not " + table)
	}
	var rows int64
	for i := first + 1; i <= first+per; i++ {
		var r int
		b, r = g.appendUnit(b, i)
		rows += int64(r)
	}
	return b, rows
}

// DeleteKeys are the order keys RF2 of update set n deletes (dbgen's delete.N).
func DeleteKeys(sf float64, n int) []int64 {
	per := RefreshOrders(sf)
	first := int64(n-1) * per
	keys := make([]int64, 0, per)
	for i := first + 1; i <= first+per; i++ {
		keys = append(keys, orderKey(i, int64(n)/1000))
	}
	return keys
}
