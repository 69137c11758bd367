package tpcc

import (
	"runtime"
	"testing"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestTerminalIsSmall: a terminal over pooled connections is a VU that never binds, and 10,000 of
// them must fit in little memory (docs/scale.md): the SQL text is shared, not parsed per VU, as it
// was when each took 17.9 KiB.
func TestTerminalIsSmall(t *testing.T) {
	for _, name := range []string{"postgres", "mysql", "sqlite"} {
		d := testutil.Dialect(t, name)
		cfg := VUConfig{Mode: ModeSQL, Seed: 1, Meta: Meta{Warehouses: 10}}
		const n = 2000
		vus := make([]*VU, 0, n)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range n {
			v, err := NewVU(i, d, cfg)
			if err != nil {
				t.Fatal(err)
			}
			v.Next() // the first menu sizes the buffers of the transaction in hand
			vus = append(vus, v)
		}
		runtime.ReadMemStats(&after)
		per := float64(after.TotalAlloc-before.TotalAlloc) / n
		t.Logf("%s: %.0f bytes allocated per terminal", name, per)
		if per > 4096 {
			t.Errorf("%s: %.0f bytes allocated per terminal, want under 4 KiB", name, per)
		}
		runtime.KeepAlive(vus)
	}
}
