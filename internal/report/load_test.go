package report

import (
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
)

// TestRunChartsMarkLoadChanges: a run's live changes (a load schedule's vu and rate) are marked
// on its throughput and p95 charts where they took effect, an instant labelled once.
func TestRunChartsMarkLoadChanges(t *testing.T) {
	d := testRun(t, "1", results.Target{Kind: "sqlite", Name: "SQLite"}, 4, 1, 7)
	d.Changes = []results.SettingChange{{T: 12.004, Planned: 7, Name: "vu", Value: "16"},
		{T: 22.01, Planned: 17, Name: "vu", Value: "4"}, {T: 22.01, Planned: 17, Name: "rate", Value: "100"}}
	for _, c := range Charts([]Item{{Run: d}}) {
		if c.ID != "run-throughput" && c.ID != "run-p95" {
			continue
		}
		want := []Mark{{X: 12.004, Label: "vu=16"}, {X: 22.01, Label: "vu=4"}, {X: 22.01}}
		if len(c.Lines) != len(want) {
			t.Fatalf("%s: lines %+v, want %+v", c.ID, c.Lines, want)
		}
		for i, w := range want {
			if c.Lines[i] != w {
				t.Errorf("%s: line %d %+v, want %+v", c.ID, i, c.Lines[i], w)
			}
		}
	}
}
