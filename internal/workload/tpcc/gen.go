package tpcc

import (
	"math/rand/v2"

	"github.com/cairn-bench/cairn/internal/target"
)

// Cardinalities (clause 4.2.2, 4.3.3.1).
const (
	numItems        = 100_000
	districtsPerW   = 10
	customersPerD   = 3_000
	ordersPerD      = 3_000
	firstNewOrder   = 2_101 // orders 2,101..3,000 are undelivered and in NEW-ORDER
	stockPerW       = 100_000
	invalidItemID   = numItems + 1
	maxOrderLines   = 15
	minOrderLines   = 5
	originalPercent = 10
)

// Column lists in table order; the loader and the schema files agree on them.
var columns = map[string][]string{
	"item":      {"i_id", "i_im_id", "i_name", "i_price", "i_data"},
	"warehouse": {"w_id", "w_name", "w_street_1", "w_street_2", "w_city", "w_state", "w_zip", "w_tax", "w_ytd"},
	"district":  {"d_id", "d_w_id", "d_name", "d_street_1", "d_street_2", "d_city", "d_state", "d_zip", "d_tax", "d_ytd", "d_next_o_id"},
	"stock": {"s_i_id", "s_w_id", "s_quantity", "s_dist_01", "s_dist_02", "s_dist_03", "s_dist_04", "s_dist_05",
		"s_dist_06", "s_dist_07", "s_dist_08", "s_dist_09", "s_dist_10", "s_ytd", "s_order_cnt", "s_remote_cnt", "s_data"},
	"customer": {"c_id", "c_d_id", "c_w_id", "c_first", "c_middle", "c_last", "c_street_1", "c_street_2", "c_city",
		"c_state", "c_zip", "c_phone", "c_since", "c_credit", "c_credit_lim", "c_discount", "c_balance",
		"c_ytd_payment", "c_payment_cnt", "c_delivery_cnt", "c_data"},
	"history":    {"h_c_id", "h_c_d_id", "h_c_w_id", "h_d_id", "h_w_id", "h_date", "h_amount", "h_data"},
	"orders":     {"o_id", "o_d_id", "o_w_id", "o_c_id", "o_entry_d", "o_carrier_id", "o_ol_cnt", "o_all_local"},
	"new_order":  {"no_o_id", "no_d_id", "no_w_id"},
	"order_line": {"ol_o_id", "ol_d_id", "ol_w_id", "ol_number", "ol_i_id", "ol_supply_w_id", "ol_delivery_d", "ol_quantity", "ol_amount", "ol_dist_info"},
}

// kinds gives each column's RowWriter method, in the order of columns: i Int, m Money, f Fixed4,
// s Str or Text, t Time (any of them may be NULL). Loading a generated file into a target whose bulk
// format is not the text format (SQLite) replays each value through it.
var kinds = map[string]string{
	"item":       "iisms",
	"warehouse":  "issssssfm",
	"district":   "iissssssfmi",
	"stock":      "iiissssssssssiiis",
	"customer":   "iiissssssssstsmfmmiis",
	"history":    "iiiiitms",
	"orders":     "iiiitiii",
	"new_order":  "iii",
	"order_line": "iiiiiitims",
}

// Tables in creation order.
var tables = []string{"warehouse", "district", "customer", "history", "new_order", "orders", "order_line", "item", "stock"}

// Gen generates the initial population deterministically: every table of every warehouse has its
// own random stream derived from the seed, so any part can be generated alone, in any order, by any
// number of loaders, and come out the same.
type Gen struct {
	Seed     uint64
	Load     Constants
	LoadTime int64 // unix seconds for C_SINCE, H_DATE, O_ENTRY_D, OL_DELIVERY_D
}

func (g *Gen) stream(w, part int) *rand.Rand {
	return newRand(g.Seed, uint64(w)<<16|uint64(part))
}

// Stream parts.
const (
	partItem = iota + 1
	partWarehouse
	partStock
	partStockOriginal
	partCustomer = 100 // + district
	partBC       = 200 // + district
	partHistory  = 300 // + district
	partOrders   = 400 // + district
	partLines    = 500 // + district
)

// Items writes the ITEM table (100,000 rows, not scaled by warehouses).
func (g *Gen) Items(w target.RowWriter) error {
	r := g.stream(0, partItem)
	orig := chooseExactly(g.stream(0, partStockOriginal+1000), numItems, numItems*originalPercent/100)
	b := make([]byte, 0, 64)
	for i := 1; i <= numItems; i++ {
		w.Int(int64(i))
		w.Int(int64(uniform(r, 1, 10_000)))
		b = appendAString(b[:0], r, 14, 24)
		w.Str(b)
		w.Money(int64(uniform(r, 100, 10_000)))
		b = appendData(b[:0], r, orig[i-1])
		w.Str(b)
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

func address(w target.RowWriter, r *rand.Rand, b []byte) []byte {
	for i := 0; i < 3; i++ {
		b = appendAString(b[:0], r, 10, 20)
		w.Str(b)
	}
	b = appendState(b[:0], r)
	w.Str(b)
	b = appendZip(b[:0], r)
	w.Str(b)
	return b
}

// Warehouse writes one WAREHOUSE row.
func (g *Gen) Warehouse(w target.RowWriter, wid int) error {
	r := g.stream(wid, partWarehouse)
	b := make([]byte, 0, 32)
	w.Int(int64(wid))
	b = appendAString(b[:0], r, 6, 10)
	w.Str(b)
	b = address(w, r, b)
	w.Fixed4(int64(uniform(r, 0, 2000)))
	w.Money(30_000_000) // 300,000.00
	return w.EndRow()
}

// Districts writes the 10 DISTRICT rows of a warehouse.
func (g *Gen) Districts(w target.RowWriter, wid int) error {
	r := g.stream(wid, partWarehouse+50)
	b := make([]byte, 0, 32)
	for d := 1; d <= districtsPerW; d++ {
		w.Int(int64(d))
		w.Int(int64(wid))
		b = appendAString(b[:0], r, 6, 10)
		w.Str(b)
		b = address(w, r, b)
		w.Fixed4(int64(uniform(r, 0, 2000)))
		w.Money(3_000_000) // 30,000.00
		w.Int(ordersPerD + 1)
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

// Stock writes the 100,000 STOCK rows of a warehouse.
func (g *Gen) Stock(w target.RowWriter, wid int) error {
	r := g.stream(wid, partStock)
	orig := chooseExactly(g.stream(wid, partStockOriginal), stockPerW, stockPerW*originalPercent/100)
	b := make([]byte, 0, 64)
	for i := 1; i <= stockPerW; i++ {
		w.Int(int64(i))
		w.Int(int64(wid))
		w.Int(int64(uniform(r, 10, 100)))
		for d := 0; d < 10; d++ {
			b = appendChars(b[:0], r, 24, alnum)
			w.Str(b)
		}
		w.Int(0)
		w.Int(0)
		w.Int(0)
		b = appendData(b[:0], r, orig[i-1])
		w.Str(b)
		if err := w.EndRow(); err != nil {
			return err
		}
	}
	return nil
}

// Customers writes the 30,000 CUSTOMER rows of a warehouse.
func (g *Gen) Customers(w target.RowWriter, wid int) error {
	b := make([]byte, 0, 512)
	for d := 1; d <= districtsPerW; d++ {
		r := g.stream(wid, partCustomer+d)
		bc := chooseExactly(g.stream(wid, partBC+d), customersPerD, customersPerD*originalPercent/100)
		for c := 1; c <= customersPerD; c++ {
			w.Int(int64(c))
			w.Int(int64(d))
			w.Int(int64(wid))
			b = appendAString(b[:0], r, 8, 16)
			w.Str(b)
			w.Text("OE")
			n := c - 1
			if c > 1000 {
				n = NURand(r, aCLast, g.Load.CLast, 0, 999)
			}
			b = appendLastName(b[:0], n)
			w.Str(b)
			b = address(w, r, b)
			b = appendNString(b[:0], r, 16)
			w.Str(b)
			w.Time(g.LoadTime)
			if bc[c-1] {
				w.Text("BC")
			} else {
				w.Text("GC")
			}
			w.Money(5_000_000) // 50,000.00
			w.Fixed4(int64(uniform(r, 0, 5000)))
			w.Money(-1000) // -10.00
			w.Money(1000)  // 10.00
			w.Int(1)
			w.Int(0)
			b = appendAString(b[:0], r, 300, 500)
			w.Str(b)
			if err := w.EndRow(); err != nil {
				return err
			}
		}
	}
	return nil
}

// History writes one HISTORY row per customer.
func (g *Gen) History(w target.RowWriter, wid int) error {
	b := make([]byte, 0, 32)
	for d := 1; d <= districtsPerW; d++ {
		r := g.stream(wid, partHistory+d)
		for c := 1; c <= customersPerD; c++ {
			w.Int(int64(c))
			w.Int(int64(d))
			w.Int(int64(wid))
			w.Int(int64(d))
			w.Int(int64(wid))
			w.Time(g.LoadTime)
			w.Money(1000)
			b = appendAString(b[:0], r, 12, 24)
			w.Str(b)
			if err := w.EndRow(); err != nil {
				return err
			}
		}
	}
	return nil
}

// order is what ORDER-LINE needs to know of its ORDER.
type order struct {
	cid, carrier, olCnt int
}

// districtOrders draws the 3,000 orders of a district: customer ids from a random permutation,
// carriers for delivered orders, line counts.
func (g *Gen) districtOrders(wid, d int) []order {
	r := g.stream(wid, partOrders+d)
	perm := permutation(r, customersPerD)
	out := make([]order, ordersPerD)
	for i := range out {
		o := &out[i]
		o.cid = perm[i]
		if i+1 < firstNewOrder {
			o.carrier = uniform(r, 1, 10)
		}
		o.olCnt = uniform(r, minOrderLines, maxOrderLines)
	}
	return out
}

// Orders writes the 30,000 ORDER rows of a warehouse.
func (g *Gen) Orders(w target.RowWriter, wid int) error {
	for d := 1; d <= districtsPerW; d++ {
		for i, o := range g.districtOrders(wid, d) {
			w.Int(int64(i + 1))
			w.Int(int64(d))
			w.Int(int64(wid))
			w.Int(int64(o.cid))
			w.Time(g.LoadTime)
			if o.carrier > 0 {
				w.Int(int64(o.carrier))
			} else {
				w.Null()
			}
			w.Int(int64(o.olCnt))
			w.Int(1)
			if err := w.EndRow(); err != nil {
				return err
			}
		}
	}
	return nil
}

// OrderLines writes the ORDER-LINE rows (5..15 per order) of a warehouse.
func (g *Gen) OrderLines(w target.RowWriter, wid int) error {
	b := make([]byte, 0, 32)
	for d := 1; d <= districtsPerW; d++ {
		r := g.stream(wid, partLines+d)
		for i, o := range g.districtOrders(wid, d) {
			oid := i + 1
			for n := 1; n <= o.olCnt; n++ {
				w.Int(int64(oid))
				w.Int(int64(d))
				w.Int(int64(wid))
				w.Int(int64(n))
				w.Int(int64(uniform(r, 1, numItems)))
				w.Int(int64(wid))
				if oid < firstNewOrder {
					w.Time(g.LoadTime)
				} else {
					w.Null()
				}
				w.Int(5)
				if oid < firstNewOrder {
					w.Money(0)
				} else {
					w.Money(int64(uniform(r, 1, 999_999)))
				}
				b = appendChars(b[:0], r, 24, alnum)
				w.Str(b)
				if err := w.EndRow(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// NewOrders writes the 9,000 NEW-ORDER rows of a warehouse (the last 900 orders of each district).
func (g *Gen) NewOrders(w target.RowWriter, wid int) error {
	for d := 1; d <= districtsPerW; d++ {
		for o := firstNewOrder; o <= ordersPerD; o++ {
			w.Int(int64(o))
			w.Int(int64(d))
			w.Int(int64(wid))
			if err := w.EndRow(); err != nil {
				return err
			}
		}
	}
	return nil
}

// rowsPerWarehouse is the expected row count of one warehouse (order lines on average), for progress.
const rowsPerWarehouse = 1 + districtsPerW + stockPerW + 2*districtsPerW*customersPerD +
	districtsPerW*ordersPerD*11 + districtsPerW*(ordersPerD-firstNewOrder+1)
