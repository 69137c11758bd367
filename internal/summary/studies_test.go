package summary

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
)

// designStudy is a study of innodb_spin_wait_delay 6 and 96 at 1 and 8 VUs, four runs a step,
// on version; each run's TPS is tps[case] (+1 per repeat) and its p95 2 ms.
func designStudy(version string, levels []string, tps [2]float64) *results.Study {
	s := &results.Study{Kind: results.KindStudy, Format: results.StudyFormat, Name: "spin", Workload: "oltp", Repeat: 4,
		Target:  results.Target{Name: "MariaDB", Version: version},
		Factors: []results.Factor{{Name: "innodb_spin_wait_delay", Levels: levels}}}
	for ci, l := range levels {
		p := &results.Profile{Workload: "oltp"}
		for _, vu := range []int{1, 8} {
			st := &results.Step{VU: vu}
			for r := 0; r < 4; r++ {
				st.Runs = append(st.Runs, &results.Document{VU: vu, MainTxn: "read_only",
					Result: results.Result{Headline: &results.Headline{Name: "TPS", Value: tps[ci%2]*float64(vu) + float64(r)}},
					Txns:   map[string]*results.Txn{"read_only": {Count: 10, LatencyMs: metrics.Latency{P95: 2}}},
					Study:  &results.StudyRef{Case: ci, Repeat: r}})
			}
			p.Steps = append(p.Steps, st)
		}
		s.Cases = append(s.Cases, &results.StudyCase{Label: "innodb_spin_wait_delay=" + l, Profile: p})
	}
	s.Summarize()
	ended := time.Date(2026, 11, 25, 7, 0, 0, 0, time.UTC)
	s.StartedAt, s.EndedAt = ended.Add(-time.Hour), &ended
	return s
}

// TestStudiesSideBySide: two studies of one design on two server versions are set side by side
// case by case and VU count by VU count, their columns labelled by version, each change tested
// over the repeats; studies of one version are labelled by letter.
func TestStudiesSideBySide(t *testing.T) {
	a := results.Loaded{ID: "3", Study: designStudy("10.11.6", []string{"6", "96"}, [2]float64{100, 50})}
	b := results.Loaded{ID: "9", Study: designStudy("11.4.2", []string{"6", "96"}, [2]float64{200, 50})}
	if err := results.SameDesign([]results.Loaded{a, b}); err != nil {
		t.Fatal(err)
	}
	var w bytes.Buffer
	Compare(&w, [][]results.Loaded{{a}, {b}})
	out := w.String()
	t.Logf("\n%s", out)
	for _, want := range []string{"studies of one design: oltp, factors innodb_spin_wait_delay (6, 96)",
		"A: study 3 spin on MariaDB 10.11.6", "B: study 9 spin on MariaDB 11.4.2", "the version is a factor",
		"TPS MariaDB 10.11.6", "TPS MariaDB 11.4.2", "vs MariaDB 10.11.6", "read_only p95 MariaDB 11.4.2"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q", want)
		}
	}
	rows := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 2 && strings.HasPrefix(f[0], "innodb_spin_wait_delay=") {
			rows[f[0]+" "+f[1]] = l
		}
	}
	if len(rows) != 4 {
		t.Fatalf("want 4 rows (2 cases × 2 VU counts), got %d", len(rows))
	}
	// Case 6 doubled on the second version (4 runs a side, apart: p = 0.029); case 96 the same.
	if r := rows["innodb_spin_wait_delay=6 8"]; !strings.Contains(r, "+99.") || !strings.Contains(r, "(p=0.029)") {
		t.Errorf("case 6 at 8 VUs: %q, want about +100%% at p=0.029", r)
	}
	if r := rows["innodb_spin_wait_delay=96 1"]; !strings.Contains(r, "+0.0% ~ (p=1.00)") {
		t.Errorf("case 96 at 1 VU: %q, want no change", r)
	}

	// One version: letters.
	c := results.Loaded{ID: "10", Study: designStudy("10.11.6", []string{"6", "96"}, [2]float64{100, 50})}
	w.Reset()
	Compare(&w, [][]results.Loaded{{a}, {c}})
	if out := w.String(); !strings.Contains(out, "TPS A") || !strings.Contains(out, "vs A") || strings.Contains(out, "is a factor") {
		t.Errorf("studies of one version are not labelled by letter:\n%s", out)
	}
}

// TestStudiesOfOtherDesigns: studies that differ in workload, factors, levels or live changes
// are refused with what differs, as bad input.
func TestStudiesOfOtherDesigns(t *testing.T) {
	a := results.Loaded{ID: "3", Study: designStudy("10.11.6", []string{"6", "96"}, [2]float64{100, 50})}
	other := func(f func(s *results.Study)) results.Loaded {
		s := designStudy("10.11.6", []string{"6", "96"}, [2]float64{100, 50})
		f(s)
		return results.Loaded{ID: "4", Study: s}
	}
	for _, c := range []struct {
		name string
		b    results.Loaded
		want string
	}{
		{"levels", other(func(s *results.Study) { s.Factors[0].Levels = []string{"6", "48"} }), "innodb_spin_wait_delay (6, 48)"},
		{"factor", other(func(s *results.Study) { s.Factors[0].Name = "innodb_adaptive_hash_index" }), "innodb_adaptive_hash_index (6, 96)"},
		{"workload", other(func(s *results.Study) { s.Workload = "tpcc" }), "tpcc, factors"},
		{"live", other(func(s *results.Study) {
			s.Schedule = []results.ScheduledSet{{AtSec: 2, Set: []results.SettingValue{{Name: "innodb_spin_wait_delay", Value: "96"}}}}
		}), "live innodb_spin_wait_delay=96"},
	} {
		err := results.SameDesign([]results.Loaded{a, c.b})
		var de *results.DesignError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "studies 3 and 4 are of different designs") {
			t.Errorf("%s: %v, want a design error naming %q", c.name, err, c.want)
		}
	}
}
