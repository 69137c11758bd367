package tpch

import (
	"encoding/json"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
)

// A TPC-H run stored before documents had timings kept them in extra.tpch: read back, they are
// the document's timings, power test first, and extra.tpch keeps the rest.
func TestUpgradeMovesOlderTimings(t *testing.T) {
	var d results.Document
	old := `{"format": 2, "kind": "run", "workload": "tpch", "result": {"power": 40},
		"extra": {"tpch": {"sf": 1, "power": [{"stream": 0, "name": "Q1", "seconds": 1.5, "rows": 4}],
			"throughput": [{"stream": 1, "name": "Q2", "seconds": 2.5, "rows": 100}]}}}`
	if err := json.Unmarshal([]byte(old), &d); err != nil {
		t.Fatal(err)
	}
	d.Upgrade()
	want := []results.Timing{{Stream: 0, Name: "Q1", Seconds: 1.5, Rows: 4}, {Stream: 1, Name: "Q2", Seconds: 2.5, Rows: 100}}
	if len(d.Timings) != 2 || d.Timings[0] != want[0] || d.Timings[1] != want[1] {
		t.Fatalf("timings %+v, want %+v", d.Timings, want)
	}
	x := d.Extra["tpch"].(map[string]any)
	if _, ok := x["power"]; ok || x["sf"] != 1.0 {
		t.Errorf("extra.tpch after the upgrade: %v", x)
	}
	if h := d.Result.Headline; h == nil || h.Name != "Power" || h.Value != 40 {
		t.Errorf("headline %+v", h)
	}
}
