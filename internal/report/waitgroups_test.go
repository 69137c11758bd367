package report

import (
	"slices"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
)

// A run whose server measured synch waits gets its waits by group and its synch waits alone,
// where the latch that is a sliver of all waits leads; a run without synch waits gets neither.
func TestSynchWaitCharts(t *testing.T) {
	r := testRun(t, "12", maria, 8, 1, 1)
	r.Waits = &results.Waits{Source: "performance_schema (fixture)", Events: []results.WaitEvent{
		{Name: "wait/io/table/sql/handler", Class: "io/table", Count: 900000, TimeMs: 9880, Share: 0.988},
		{Name: "wait/synch/rwlock/innodb/btr_search_latch", Class: "rwlock", Count: 52375, TimeMs: 80, Share: 0.008},
		{Name: "wait/synch/mutex/innodb/trx_sys_mutex", Class: "mutex", Count: 700, TimeMs: 20, Share: 0.002},
		{Name: "wait/lock/table/sql/handler", Class: "lock/table", Count: 10, TimeMs: 20, Share: 0.002}}}
	cs := observationCharts([]labelled{{Item: Item{Run: r}, label: "A"}}, nil)
	ids := chartIDs(cs)
	if !slices.Equal(ids, []string{"run-cpu-1", "run-waits", "run-wait-groups", "run-synch-waits"}) {
		t.Fatalf("charts %v", ids)
	}
	if g := cs[2].Categories; !slices.Equal(g, []string{"synch", "io", "lock"}) {
		t.Errorf("groups %v", g)
	}
	sy := cs[3]
	if sy.Categories[0] != "wait/synch/rwlock/innodb/btr_search_latch" || sy.Series[0].Points[0] != [2]float64{0, 80} {
		t.Errorf("synch waits %v %v", sy.Categories, sy.Series)
	}
	plain := testRun(t, "13", pg, 8, 1, 1)
	if ids := chartIDs(observationCharts([]labelled{{Item: Item{Run: plain}, label: "B"}}, nil)); slices.Contains(ids, "run-synch-waits") {
		t.Errorf("a run without synch waits draws them: %v", ids)
	}
}
