package session

import (
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
	p95 := SearchOptions{Percentile: "p95", Target: 50 * time.Millisecond}
	p99 := SearchOptions{Percentile: "p99", Target: 50 * time.Millisecond}
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
		so   SearchOptions
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
