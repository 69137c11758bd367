package summary

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
)

// fanoutRun is a stored run's extra.fanout (as read back from JSON): logical and physical p95,
// and two shards on one server, the second adding added ms to the requests, the first 1 ms.
func fanoutRun(t *testing.T, logical, physical, added float64) map[string]any {
	t.Helper()
	x := results.Fanout{Requests: 100, LogicalMs: latencyP95(logical), PhysicalMs: latencyP95(physical),
		PerShard:  []results.FanoutGroup{{Name: "h:1/s0", Last: 70, AddedMs: 1}, {Name: "h:1/s1", Last: 30, AddedMs: added}},
		PerServer: []results.FanoutGroup{{Name: "h:1", Last: 100, AddedMs: 1 + added}}}
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func latencyP95(p95 float64) metrics.Latency { return metrics.Latency{P95: p95, Mean: p95 / 2} }

// Two fan-out studies side by side: each case's logical and physical p95 against the first
// study's, and its slowest shard by the time added over the step's runs pooled (the shard that
// ended last less often), from documents as stored.
func TestFanoutStudiesSideBySide(t *testing.T) {
	a := results.Loaded{ID: "3", Study: designStudy("10.11.6", []string{"6", "96"}, [2]float64{100, 50})}
	b := results.Loaded{ID: "9", Study: designStudy("10.11.6", []string{"6", "96"}, [2]float64{100, 50})}
	for k, l := range []results.Loaded{a, b} {
		for _, c := range l.Study.Cases {
			for _, st := range c.Profile.Steps {
				for _, d := range st.Runs {
					d.Extra = map[string]any{results.FanoutSection: fanoutRun(t, 10*float64(k+1), 2, 40)}
				}
			}
		}
	}
	var w bytes.Buffer
	Compare(&w, [][]results.Loaded{{a}, {b}})
	out := w.String()
	_, tab, ok := strings.Cut(out, "fan-out per case and VU count")
	if !ok {
		t.Fatalf("no fan-out table:\n%s", out)
	}
	rows := 0
	for _, l := range strings.Split(tab, "\n") {
		f := strings.Fields(l)
		if len(f) < 3 || !strings.HasPrefix(f[0], "innodb_spin_wait_delay=") {
			continue
		}
		rows++
		// logical 10 and 20 (+100%), physical 2 and 2, slowest h:1/s1 with 40 of 41 ms added.
		if !strings.Contains(l, "+100.0%") || strings.Count(l, "h:1/s1") != 2 || strings.Contains(l, "h:1/s0") || strings.Count(l, "97.6%") != 2 {
			t.Errorf("row %q", l)
		}
	}
	if rows != 4 {
		t.Errorf("%d fan-out rows, want 4:\n%s", rows, tab)
	}
}
