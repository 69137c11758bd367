package tpch

import (
	"context"
	"testing"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// A refresh pair that stopped inside RF1 (here: RF1 applied, its journal still at "rf1", as after a
// kill before the journal's next write) is undone by the next run's repair: the orders and lines
// of update set 1 are gone, the set is not counted, and the journal is clear.
func TestRefreshRepairUndoesRF1(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			ctx := context.Background()
			target, c := testutil.Open(t, tg.URL(t))
			if _, err := Cleanup(ctx, target); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { Cleanup(context.Background(), target) })
			if _, err := Prepare(ctx, target, PrepareOptions{SF: 0.01, Loaders: 1}); err != nil {
				t.Fatal(err)
			}
			count := func(table string) int {
				var n int
				if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM "+table).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			orders, lines := count("orders"), count("lineitem")
			_, meta, err := LoadMeta(ctx, target, c)
			if err != nil {
				t.Fatal(err)
			}
			j, err := openJournal(ctx, target, meta)
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			if err := j.step(ctx, 1, "rf1"); err != nil {
				t.Fatal(err)
			}
			if _, err := rf1(ctx, c, meta.SF, 1); err != nil {
				t.Fatal(err)
			}
			if count("orders") == orders {
				t.Fatal("RF1 inserted no orders")
			}
			_, meta, err = LoadMeta(ctx, target, c)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := Repair(ctx, target, meta)
			if err != nil {
				t.Fatal(err)
			}
			if rep == nil || !rep.Undone || rep.Set != 1 {
				t.Fatalf("repair: %+v, want RF1 of set 1 undone", rep)
			}
			if o, l := count("orders"), count("lineitem"); o != orders || l != lines {
				t.Errorf("after the undo: %d orders and %d lines, want %d and %d", o, l, orders, lines)
			}
			if meta.RefreshSets != 0 {
				t.Errorf("RefreshSets %d after an undone set", meta.RefreshSets)
			}
			rep, err = Repair(ctx, target, meta)
			if rep != nil || err != nil {
				t.Errorf("a second repair found something: %+v, %v", rep, err)
			}
		})
	}
}
