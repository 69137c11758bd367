package results

import (
	"math"
	"testing"

	"github.com/cairn-bench/cairn/internal/metrics"
)

func TestFindMarks(t *testing.T) {
	cases := []struct {
		name                         string
		pts                          []Point
		peak, saturation, bottleneck int
	}{
		{
			// Throughput grows until 8 VUs, then flattens while latency climbs.
			name: "saturates",
			pts: []Point{{1, 1000, 2}, {2, 1900, 2.1}, {4, 3600, 2.3}, {8, 6000, 2.8},
				{16, 6100, 6.8}, {24, 6050, 9.8}, {32, 5900, 12.5}},
			peak: 16, saturation: 8, bottleneck: 16,
		},
		{
			// Linear scaling with flat latency: no saturation, and no step where latency grows.
			name: "scales",
			pts:  []Point{{1, 1000, 2}, {2, 2000, 2}, {4, 4000, 2}},
			peak: 4,
		},
		{
			// Throughput flat but latency rises only 10%: the rule needs both conditions.
			name: "flat but latency within 20%",
			pts:  []Point{{1, 1000, 2}, {2, 1010, 2.2}, {4, 1020, 2.3}},
			peak: 4, bottleneck: 2,
		},
		{
			// Latency jumps more than 20% while throughput still grows 6%: not saturated yet.
			name: "latency grows but so does throughput",
			pts:  []Point{{1, 1000, 2}, {2, 1060, 3}, {4, 1070, 4}},
			peak: 4, saturation: 2, bottleneck: 2,
		},
		{
			// Per added VU, 4→8 (+0.5 ms/VU) is steeper than 8→32 (+0.25 ms/VU) though the
			// latter adds more in total.
			name: "bottleneck is per added VU",
			pts:  []Point{{4, 100, 1}, {8, 200, 3}, {32, 400, 9}},
			peak: 32, bottleneck: 8,
		},
		{name: "one step", pts: []Point{{4, 100, 1}}, peak: 4},
		{name: "none", pts: nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := FindMarks(c.pts)
			if m.Peak != c.peak || m.Saturation != c.saturation || m.Bottleneck != c.bottleneck {
				t.Fatalf("marks %+v, want peak %d saturation %d bottleneck %d", m, c.peak, c.saturation, c.bottleneck)
			}
		})
	}
}

func TestNewStat(t *testing.T) {
	s := NewStat([]float64{2, 4, 4, 4, 5, 5, 7, 9})
	if s.N != 8 || s.Mean != 5 || s.Min != 2 || s.Max != 9 {
		t.Fatalf("stat %+v", s)
	}
	// Sample standard deviation (n-1) of that classic set is sqrt(32/7).
	if math.Abs(s.SD-math.Sqrt(32.0/7)) > 1e-12 {
		t.Fatalf("sd %v, want %v", s.SD, math.Sqrt(32.0/7))
	}
	if one := NewStat([]float64{3}); one.SD != 0 || one.Mean != 3 {
		t.Fatalf("single value %+v", one)
	}
}

func TestProfileSummarize(t *testing.T) {
	p := &Profile{Steps: []*Step{
		{VU: 1, Runs: []*Document{fakeRun(1, 1000, 2), fakeRun(1, 1100, 2.2)}},
		{VU: 2, Runs: []*Document{fakeRun(2, 2000, 2.5), fakeRun(2, 2100, 2.4)}},
		{VU: 4, Runs: []*Document{fakeRun(4, 2050, 5), {VU: 4}}}, // the second measured nothing
	}}
	p.Summarize()
	s := p.Steps[0].Summary
	if s.Headline.N != 2 || s.Headline.Mean != 1050 || s.P95ms.Mean != 2.1 {
		t.Fatalf("step 1 summary %+v", s)
	}
	if p.Steps[2].Summary.Headline.N != 1 {
		t.Fatalf("a run that measured nothing was counted: %+v", p.Steps[2].Summary.Headline)
	}
	if p.Headline != "NOPM" || p.MainTxn != "new_order" {
		t.Fatalf("headline %q main %q", p.Headline, p.MainTxn)
	}
	if p.Marks.Peak != 2 || p.Marks.Saturation != 2 || p.Marks.Bottleneck != 4 {
		t.Fatalf("marks %+v", p.Marks)
	}
}

func TestCompare(t *testing.T) {
	// Clearly separated samples of 5: the exact two-sided p is 2/252.
	d := Compare([]float64{100, 101, 99, 100, 102}, []float64{110, 111, 112, 109, 110})
	if !d.Significant() || math.Abs(d.P-2.0/252) > 1e-9 {
		t.Fatalf("p = %v, want %v", d.P, 2.0/252)
	}
	if math.Abs(d.Change-(110.4/100.4-1)) > 1e-12 {
		t.Fatalf("change %v", d.Change)
	}
	// Overlapping samples: not significant.
	if d := Compare([]float64{100, 105, 98}, []float64{101, 99, 104}); d.Significant() {
		t.Fatalf("overlapping samples called significant: p = %v", d.P)
	}
	// Single runs: no test.
	if d := Compare([]float64{100}, []float64{200}); d.P != -1 || d.Change != 1 {
		t.Fatalf("single runs: %+v", d)
	}
}

func TestCompareProfiles(t *testing.T) {
	a := &Profile{Steps: []*Step{{VU: 1, Runs: []*Document{fakeRun(1, 1000, 2)}}, {VU: 2, Runs: []*Document{fakeRun(2, 2000, 4)}},
		{VU: 8, Runs: []*Document{fakeRun(8, 3000, 8)}}}}
	b := &Profile{Steps: []*Step{{VU: 1, Runs: []*Document{fakeRun(1, 1100, 2)}}, {VU: 2, Runs: []*Document{fakeRun(2, 2420, 2)}},
		{VU: 4, Runs: []*Document{fakeRun(4, 3000, 3)}}}}
	a.Summarize()
	b.Summarize()
	steps, gm, gmP := CompareProfiles(a, b)
	if len(steps) != 2 || steps[0].VU != 1 || steps[1].VU != 2 {
		t.Fatalf("matched steps %+v", steps)
	}
	// Ratios 1.1 and 1.21: geometric mean 1.1^1.5.
	if math.Abs(gm-math.Pow(1.1, 1.5)) > 1e-12 {
		t.Fatalf("geomean %v", gm)
	}
	// p95 ratios 1 and 0.5.
	if math.Abs(gmP-math.Sqrt(0.5)) > 1e-12 {
		t.Fatalf("p95 geomean %v", gmP)
	}
}

func fakeRun(vu int, nopm int64, p95 float64) *Document {
	tpm := 2 * nopm
	return &Document{Kind: KindRun, VU: vu, MainTxn: "new_order", TxnOrder: []string{"new_order"},
		Result: Result{NOPM: &nopm, TPM: &tpm},
		Txns:   map[string]*Txn{"new_order": {Count: nopm, LatencyMs: metricsLatency(p95)}}}
}

func metricsLatency(p95 float64) metrics.Latency {
	return metrics.Latency{Mean: p95 / 2, P50: p95 / 2, P90: p95 * 0.9, P95: p95, P99: p95 * 1.5, P999: p95 * 2, Max: p95 * 3}
}
