package oltp

import (
	"context"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestHotPathAllocs runs point-select events on a real PostgreSQL and MariaDB and counts allocations
// per event. A higher count means something on the hot path started allocating.
//   - PostgreSQL, at most 5: cairn's own code allocates nothing (parameters in fixed cells, rows
//     scanned into reused buffers); what remains is pgx's per-query Rows (the rows, its two
//     scan-plan slices, the command tag) and the target's Rows wrapper.
//   - MySQL/MariaDB, none: the statement runs on the target's own wire (target/mysql/wire.go), its
//     id parameter is a cell (target.Cells) and the row is decoded into reused buffers. Through
//     go-sql-driver's statements it was 3.5, through database/sql's Stmt 17.
func TestHotPathAllocs(t *testing.T) {
	for _, tc := range []struct {
		name string
		url  func(testing.TB) string
		max  float64
	}{{"postgres", testutil.PG, 5}, {"mysql", testutil.MySQL, 0}} {
		t.Run(tc.name, func(t *testing.T) { hotPathAllocs(t, tc.url(t), tc.max) })
	}
}

func hotPathAllocs(t *testing.T, url string, max float64) {
	ctx := context.Background()
	tg, err := target.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if _, err := Cleanup(ctx, tg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = Cleanup(context.Background(), tg) })
	if _, err := Prepare(ctx, tg, PrepareOptions{Tables: 1, TableSize: 1000, Loaders: 1, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	w := mustLookup(t, "point-select")
	o := DefaultOptions()
	o.PointSelects = w.DefaultPointSelects()
	v, err := NewVU(0, tg.Dialect(), VUOptions{Workload: w, Options: o, Tables: 1, TableSize: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := tg.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := v.Bind(ctx, c); err != nil {
		t.Fatal(err)
	}
	n := testing.AllocsPerRun(2000, func() {
		v.Next()
		if _, err := v.Do(ctx); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.1f allocations per point-select event", n)
	if n > max {
		t.Errorf("%.1f allocations per point-select event, want at most %.0f", n, max)
	}
	if len(v.textDst.b) == 0 {
		t.Error("the point select's c was not read")
	}
}
