package tpcc

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
)

// rows captures generated rows as text lines.
type rows struct {
	buf   bytes.Buffer
	w     *target.TextRowWriter
	lines []string
}

func capture(t *testing.T, gen func(target.RowWriter) error) []string {
	t.Helper()
	var b bytes.Buffer
	w := target.NewTextRowWriter(&b)
	if err := gen(w); err != nil {
		t.Fatal(err)
	}
	if err := w.FlushBuf(); err != nil {
		t.Fatal(err)
	}
	out := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	return out
}

func fields(line string) []string { return strings.Split(line, "\t") }

func hashLines(lines []string) string {
	h := sha256.New()
	for _, l := range lines {
		h.Write([]byte(l))
		h.Write([]byte{'\n'})
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func testGen(seed uint64) *Gen {
	return &Gen{Seed: seed, Load: LoadConstants(newRand(seed, 0)), LoadTime: 1_700_000_000}
}

func TestPopulationDeterministic(t *testing.T) {
	a, b, c := testGen(11), testGen(11), testGen(12)
	for name, f := range map[string]func(g *Gen) func(target.RowWriter) error{
		"customer": func(g *Gen) func(target.RowWriter) error {
			return func(w target.RowWriter) error { return g.Customers(w, 2) }
		},
		"order_line": func(g *Gen) func(target.RowWriter) error {
			return func(w target.RowWriter) error { return g.OrderLines(w, 2) }
		},
		"stock": func(g *Gen) func(target.RowWriter) error {
			return func(w target.RowWriter) error { return g.Stock(w, 2) }
		},
	} {
		ha, hb, hc := hashLines(capture(t, f(a))), hashLines(capture(t, f(b))), hashLines(capture(t, f(c)))
		if ha != hb {
			t.Errorf("%s: same seed gave different data", name)
		}
		if ha == hc {
			t.Errorf("%s: different seeds gave the same data", name)
		}
	}
	// A warehouse's data does not depend on what else was generated first (parallel loaders).
	g := testGen(11)
	capture(t, func(w target.RowWriter) error { return g.Stock(w, 1) })
	if hashLines(capture(t, func(w target.RowWriter) error { return g.Customers(w, 2) })) !=
		hashLines(capture(t, func(w target.RowWriter) error { return testGen(11).Customers(w, 2) })) {
		t.Error("customer data of warehouse 2 depends on generation order")
	}
}

func TestPopulationRules(t *testing.T) {
	g := testGen(3)
	items := capture(t, g.Items)
	if len(items) != numItems {
		t.Fatalf("items: %d rows", len(items))
	}
	orig := 0
	for _, l := range items {
		f := fields(l)
		if n := len(f[4]); n < 26 || n > 50 {
			t.Fatalf("i_data length %d", n)
		}
		if strings.Contains(f[4], "ORIGINAL") {
			orig++
		}
	}
	// Exactly 10% chosen; a random string may by chance contain ORIGINAL too (vanishingly rare).
	if orig < 10000 || orig > 10010 {
		t.Errorf("items with ORIGINAL: %d, want 10%%", orig)
	}

	cust := capture(t, func(w target.RowWriter) error { return g.Customers(w, 1) })
	if len(cust) != 30000 {
		t.Fatalf("customers: %d", len(cust))
	}
	bc := 0
	for i, l := range cust {
		f := fields(l)
		cid := i%3000 + 1
		if f[0] != fmt.Sprint(cid) {
			t.Fatalf("row %d: c_id %s", i, f[0])
		}
		if cid <= 1000 && f[5] != LastName(cid-1) {
			t.Fatalf("c_id %d: c_last %s, want %s", cid, f[5], LastName(cid-1))
		}
		if f[13] == "BC" {
			bc++
		}
		if f[16] != "-10.00" || f[17] != "10.00" || f[14] != "50000.00" || f[4] != "OE" {
			t.Fatalf("c_id %d: fixed values wrong: %v", cid, f[13:18])
		}
		if len(f[10]) != 9 || !strings.HasSuffix(f[10], "11111") {
			t.Fatalf("zip %q", f[10])
		}
		if n := len(f[20]); n < 300 || n > 500 {
			t.Fatalf("c_data length %d", n)
		}
	}
	if bc != 3000 {
		t.Errorf("BC customers: %d, want exactly 10%% (3000)", bc)
	}

	orders := capture(t, func(w target.RowWriter) error { return g.Orders(w, 1) })
	lines := capture(t, func(w target.RowWriter) error { return g.OrderLines(w, 1) })
	if len(orders) != 30000 {
		t.Fatalf("orders: %d", len(orders))
	}
	perDistrict := map[string]map[string]bool{}
	sumOL := 0
	for _, l := range orders {
		f := fields(l)
		if perDistrict[f[1]] == nil {
			perDistrict[f[1]] = map[string]bool{}
		}
		if perDistrict[f[1]][f[3]] {
			t.Fatalf("district %s: customer %s has two orders (not a permutation)", f[1], f[3])
		}
		perDistrict[f[1]][f[3]] = true
		var oid, cnt int
		fmt.Sscan(f[0], &oid)
		fmt.Sscan(f[6], &cnt)
		sumOL += cnt
		if (oid < 2101) == (f[5] == `\N`) {
			t.Fatalf("order %d: carrier %s", oid, f[5])
		}
		if cnt < 5 || cnt > 15 {
			t.Fatalf("o_ol_cnt %d", cnt)
		}
	}
	if len(lines) != sumOL {
		t.Fatalf("order lines %d, sum of o_ol_cnt %d", len(lines), sumOL)
	}
	for _, l := range lines {
		f := fields(l)
		var oid int
		fmt.Sscan(f[0], &oid)
		if oid < 2101 && (f[8] != "0.00" || f[6] == `\N`) {
			t.Fatalf("delivered line of order %d: amount %s delivery %s", oid, f[8], f[6])
		}
		if oid >= 2101 && (f[8] == "0.00" || f[6] != `\N`) {
			t.Fatalf("undelivered line of order %d: amount %s delivery %s", oid, f[8], f[6])
		}
	}
	no := capture(t, func(w target.RowWriter) error { return g.NewOrders(w, 1) })
	if len(no) != 9000 {
		t.Fatalf("new orders: %d", len(no))
	}
}
