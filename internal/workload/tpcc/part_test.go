package tpcc

import (
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/sqlfile"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
)

// A part's share of a TPC-C run never shares a home warehouse with another part's, whether the
// terminals are fewer or more than the warehouses, and the shares together are every VU once.
func TestPartsShareVUsApart(t *testing.T) {
	for _, c := range []struct{ vus, w, n int }{{6, 6, 3}, {4, 10, 3}, {7, 3, 3}, {20, 10, 3}, {100, 10, 4}} {
		seen := map[int]bool{}
		home := map[int]int{} // home warehouse -> part
		for i := 1; i <= c.n; i++ {
			ids, err := partIDs(c.vus, c.w, workload.Part{I: i, N: c.n})
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range ids {
				if seen[id] {
					t.Errorf("%d VUs in %d parts: VU %d twice", c.vus, c.n, id)
				}
				seen[id] = true
				if p, ok := home[id%c.w]; ok && p != i {
					t.Errorf("%d VUs on %d warehouses in %d parts: warehouse %d is home to parts %d and %d", c.vus, c.w, c.n, id%c.w+1, p, i)
				}
				home[id%c.w] = i
			}
		}
		if len(seen) != c.vus {
			t.Errorf("%d VUs in %d parts: %d VUs in the shares", c.vus, c.n, len(seen))
		}
	}
}

// TestIndexesFollowTheirTables makes sure every dialect's index statement is assigned to the table
// it names, to be built after that table's last load job.
func TestIndexesFollowTheirTables(t *testing.T) {
	jobs := genJobs(&Gen{}, 1, 2, true)
	tables := make([]string, len(jobs))
	for i, j := range jobs {
		tables[i] = j.table
	}
	for _, d := range []string{"postgres", "mysql", "sqlite"} {
		idx, err := stmts(testutil.Dialect(t, d), "indexes.sql")
		if err != nil {
			t.Fatal(err)
		}
		a, err := newAfterLoad(idx, tables)
		if err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		n := 0
		for tbl, sts := range a.idx {
			n += len(sts)
			for _, st := range sts {
				if !strings.Contains(st.SQL, " "+tbl+" ") {
					t.Errorf("%s: index %s assigned to %s: %s", d, st.Name, tbl, st.SQL)
				}
			}
			want := int64(2) // one job per warehouse, one for item
			if tbl == "item" {
				want = 1
			}
			if left := a.left[tbl].Load(); left != want {
				t.Errorf("%s: %s has %d load jobs, want %d", d, tbl, left, want)
			}
		}
		if n != len(idx) {
			t.Errorf("%s: %d of %d index statements assigned", d, n, len(idx))
		}
	}
	_, err := newAfterLoad([]sqlfile.Stmt{{Name: "x", SQL: "CREATE INDEX x ON nowhere (a)"}}, tables)
	if err == nil {
		t.Error("an index on a table that is not loaded was accepted")
	}
}
