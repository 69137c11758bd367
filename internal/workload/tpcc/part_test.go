package tpcc

import (
	"testing"

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
