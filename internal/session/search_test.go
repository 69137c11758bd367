package session

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/results"
)

func TestNextRate(t *testing.T) {
	cases := []struct {
		lo, hi, want float64
		done         bool
	}{
		{1000, 0, 2000, false},    // none failed: double
		{0, 1000, 500, false},     // none held: halve
		{1000, 2000, 1500, false}, // bisect
		{1000, 1100, 0, true},     // within 10%
		{1000, 1101, 1050, false},
		{333, 0, 666, false},
		{1234, 1567, 1400, false}, // 1400.5 to three digits
	}
	for _, c := range cases {
		got, done := nextRate(c.lo, c.hi, 0.1)
		if got != c.want || done != c.done {
			t.Errorf("nextRate(%g, %g) = %g, %v; want %g, %v", c.lo, c.hi, got, done, c.want, c.done)
		}
	}
}

// stepDoc is a step's document: n transactions of the main type in a 10 s window, p95 and p99 in ms,
// its steady-state judgement.
func stepDoc(n int64, p95, p99 float64, st *results.Steady) *results.Document {
	d := &results.Document{MainTxn: "t", Txns: map[string]*results.Txn{"t": {Count: n}}, Steady: st}
	d.Txns["t"].LatencyMs.P95, d.Txns["t"].LatencyMs.P99 = p95, p99
	d.Window.ClientSeconds, d.Window.Seconds = 10, 10
	return d
}

func steadyOK() *results.Steady {
	return &results.Steady{Steady: true, Throughput: results.SteadySeries{Settled: true}, P95: &results.SteadySeries{Settled: true}}
}

func TestJudgeStep(t *testing.T) {
	p95 := []results.SearchTarget{{Txn: "t", Percentile: "p95", TargetMs: 50}}
	p99 := []results.SearchTarget{{Txn: "t", Percentile: "p99", TargetMs: 50}}
	late := steadyOK()
	late.Steady, late.ShortBySeconds = false, 3 // a warm-up into the window does not fail a step
	drift := steadyOK()
	drift.P95.Drifting, drift.P95.TrendPctPerMin = true, 40
	unsettled := steadyOK()
	unsettled.Throughput.Settled = false
	falling := steadyOK()
	falling.Throughput.Drifting, falling.Throughput.TrendPctPerMin = true, -30
	better := steadyOK()
	better.P95.Drifting, better.P95.TrendPctPerMin = true, -40
	rising := steadyOK()
	rising.Throughput.Drifting, rising.Throughput.TrendPctPerMin = true, 30
	cases := []struct {
		name string
		d    *results.Document
		rate float64
		so   []results.SearchTarget
		why  string // "" holds
	}{
		{"holds", stepDoc(10000, 20, 80, steadyOK()), 1000, p95, ""},
		// 1000/s for 10 s: a Poisson count's sd is 100, 1% of it; the shortfall allowed is three
		// of them, 3%.
		{"within the shortfall", stepDoc(9710, 20, 80, steadyOK()), 1000, p95, ""},
		{"short", stepDoc(9690, 20, 80, steadyOK()), 1000, p95, "achieved 969/s, 3.1% short"},
		// 100000/s for 10 s: sd 0.1%; the 2% floor applies.
		{"short by the floor", stepDoc(979000, 20, 80, steadyOK()), 100000, p95, "2.1% short"},
		// 10/s for 10 s: 3√100/10 = 3/s may be missing.
		{"short at a low rate by chance", stepDoc(71, 20, 80, steadyOK()), 10, p95, ""},
		{"short at a low rate", stepDoc(69, 20, 80, steadyOK()), 10, p95, "achieved 6.9/s"},
		{"over the p95", stepDoc(10000, 51, 80, steadyOK()), 1000, p95, "p95 51 ms > 50 ms"},
		{"over the p99", stepDoc(10000, 20, 80, steadyOK()), 1000, p99, "p99 80 ms > 50 ms"},
		{"late warm-up", stepDoc(10000, 20, 80, late), 1000, p95, ""},
		{"p95 drifts", stepDoc(10000, 20, 80, drift), 1000, p95, "not steady: p95 drifts +40%/min"},
		{"throughput falls", stepDoc(10000, 20, 80, falling), 1000, p95, "not steady: throughput drifts -30%/min"},
		// Trends the other way, and a series that did not settle, are in the figures judged.
		{"p95 falls", stepDoc(10000, 20, 80, better), 1000, p95, ""},
		{"throughput rises", stepDoc(10000, 20, 80, rising), 1000, p95, ""},
		{"did not settle", stepDoc(10000, 20, 80, unsettled), 1000, p95, ""},
		{"not judged", stepDoc(10000, 20, 80, nil), 1000, p95, "steady state not judged"},
	}
	for _, c := range cases {
		pt := judgeStep(c.d, c.rate, c.so)
		if pt.Held != (c.why == "") || !strings.Contains(pt.Why, c.why) {
			t.Errorf("%s: held %v, why %q; want %q", c.name, pt.Held, pt.Why, c.why)
		}
	}
}

// A step's document with two types: "a" with p95 pa (p99 twice it), "b" with p95 pb, 5,000 of
// each in a 10 s window (1,000/s in all).
func twoTypes(pa, pb float64) *results.Document {
	d := stepDoc(0, 0, 0, steadyOK())
	d.MainTxn, d.Txns = "a", map[string]*results.Txn{"a": {Count: 5000}, "b": {Count: 5000}}
	d.Txns["a"].LatencyMs.P95, d.Txns["a"].LatencyMs.P99 = pa, 2*pa
	d.Txns["b"].LatencyMs.P95, d.Txns["b"].LatencyMs.P99 = pb, 2*pb
	return d
}

// Per-type targets: a step holds only when every target holds, and the target that bound is the
// one with the highest latency over its target, held or not.
func TestJudgeStepPerType(t *testing.T) {
	targets := []results.SearchTarget{{Txn: "a", Percentile: "p95", TargetMs: 50}, {Txn: "b", Percentile: "p95", TargetMs: 80}, {Txn: "a", Percentile: "p99", TargetMs: 200}}
	cases := []struct {
		name  string
		d     *results.Document
		why   string // "" holds
		bound string
		fine  string // a target that held: not named among the misses
	}{
		// ratios 0.8, 0.5, 0.4: a's p95 nearest its target
		{"all hold", twoTypes(40, 40), "", "a p95", ""},
		// ratios 0.6, 1.125, 0.3: b misses alone, and a step needs every target
		{"b misses", twoTypes(30, 90), "b p95 90 ms > 80 ms", "b p95", "a p"},
		// ratios 1.2, 0.5, 0.6: a's p95 misses, its p99 (120 ms) holds
		{"a's p95 misses", twoTypes(60, 40), "a p95 60 ms > 50 ms", "a p95", "a p99"},
		// ratios 2.2, 0.25, 1.1: both of a's miss; the p95 is further over
		{"a misses twice", twoTypes(110, 20), "a p95 110 ms > 50 ms; a p99 220 ms > 200 ms", "a p95", "b p95"},
	}
	for _, c := range cases {
		pt := judgeStep(c.d, 1000, targets)
		if pt.Held != (c.why == "") || !strings.Contains(pt.Why, c.why) || pt.Bound != c.bound || c.fine != "" && strings.Contains(pt.Why, c.fine) {
			t.Errorf("%s: held %v, why %q, bound %q; want %q, bound %q", c.name, pt.Held, pt.Why, pt.Bound, c.why, c.bound)
		}
		if len(pt.LatencyMs) != 3 || pt.LatencyMs[0] != c.d.Txns["a"].LatencyMs.P95 || pt.LatencyMs[1] != c.d.Txns["b"].LatencyMs.P95 || pt.LatencyMs[2] != c.d.Txns["a"].LatencyMs.P99 {
			t.Errorf("%s: latencies %v, not the targets' percentiles in their order", c.name, pt.LatencyMs)
		}
	}
	// A type that completed nothing misses its target.
	d := twoTypes(10, 10)
	d.Txns["b"].Count = 0
	if pt := judgeStep(d, 500, targets); pt.Held || !strings.Contains(pt.Why, "no b completed") {
		t.Errorf("b completed nothing: held %v, why %q", pt.Held, pt.Why)
	}
}

// The answer's bound target is the one over its latency at the lowest rate that missed; none when
// that rate missed only by falling short.
func TestSearchBound(t *testing.T) {
	targets := []results.SearchTarget{{Txn: "a", Percentile: "p95", TargetMs: 50}, {Txn: "b", Percentile: "p95", TargetMs: 80}}
	sr := &results.Search{Targets: targets, Points: []results.SearchPoint{
		{Rate: 1000, Held: true, Bound: "a p95", LatencyMs: []float64{40, 40}},
		{Rate: 2000, Bound: "b p95", LatencyMs: []float64{45, 900}},
		{Rate: 1500, Bound: "b p95", LatencyMs: []float64{45, 95}},
	}}
	finish(sr, 1000, 1500)
	if sr.Bound != "b p95" || !sr.Found || sr.Lo != 1000 || sr.Hi != 1500 {
		t.Errorf("bound %q found %v [%g, %g)", sr.Bound, sr.Found, sr.Lo, sr.Hi)
	}
	sr.Points[2].LatencyMs = []float64{45, 70} // 1500/s fell short, within every target
	finish(sr, 1000, 1500)
	if sr.Bound != "" {
		t.Errorf("bound %q at a rate that missed no latency target", sr.Bound)
	}
}

func TestSearchTargets(t *testing.T) {
	types := []string{"new_order", "payment", "delivery"}
	var o SearchOptions
	if err := o.Hold("50ms,payment=80ms", "delivery=2s"); err != nil {
		t.Fatal(err)
	}
	got, err := o.resolve(types, "new_order")
	want := []SearchTarget{{"new_order", "p95", 50 * time.Millisecond}, {"payment", "p95", 80 * time.Millisecond}, {"delivery", "p99", 2 * time.Second}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("targets %v, %v; want %v", got, err, want)
	}
	for _, c := range []struct{ p95, p99, want string }{
		{"new-order=50ms", "", `--p95 new-order=50ms: this workload has no transaction type "new-order"; its types: new_order, payment, delivery`},
		{"50ms,new_order=60ms", "", "--p95: new_order has two targets (50ms and 60ms): give one"},
		{"payment=0", "", "--p95 payment=0: give a positive latency"},
		{"", "=5ms", "--p99 =5ms: give a positive latency"},
		{"fast", "", "--p95 fast: give a positive latency"},
	} {
		err := o.Hold(c.p95, c.p99)
		if err == nil {
			_, err = o.resolve(types, "new_order")
		}
		var ie *InputError
		if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("--p95 %q --p99 %q: %v; want bad input %q", c.p95, c.p99, err, c.want)
		}
	}
}
