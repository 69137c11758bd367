package steady

import (
	"math"
	"math/rand/v2"
	"testing"
)

// ar1 is n seconds of an AR(1) series around mean with the given lag-1 correlation and a
// standard deviation of sd (stationary from its first sample).
func ar1(r *rand.Rand, n int, mean, sd, rho float64) []float64 {
	x := make([]float64, n)
	e := r.NormFloat64() // stationary start: Var(e) = 1
	scale := math.Sqrt(1 - rho*rho)
	for i := range x {
		x[i] = mean + sd*e
		e = rho*e + scale*r.NormFloat64()
	}
	return x
}

// The interval of a stationary series covers its true mean in at least 93% of seeded trials (1000
// of them, so that the check measures the method rather than the luck of 100 draws: a true 95%
// interval falls below 93 of 100 about once in five sets), for independent seconds and for
// autocorrelated ones; and such a series is found steady. The noise is 2% of the mean, about what
// a steady run's per-second throughput shows.
func TestMeanCICoverage(t *testing.T) {
	for _, c := range []struct {
		n   int
		rho float64
	}{{60, 0}, {60, 0.3}, {60, 0.5}, {180, 0.5}, {180, 0.7}} {
		covered, steady := 0, 0
		for seed := uint64(1); seed <= 1000; seed++ {
			r := rand.New(rand.NewPCG(seed, uint64(c.n)<<8|uint64(c.rho*10)))
			x := ar1(r, c.n+30, 1000, 20, c.rho) // 30 s of rampup, already steady
			v, err := Judge(x, 30)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(v.Window.Mean-1000) <= v.Window.Half {
				covered++
			}
			if v.Steady() {
				steady++
			}
		}
		t.Logf("n=%d rho=%.1f: covered %d/1000, steady %d/1000", c.n, c.rho, covered, steady)
		if covered < 930 {
			t.Errorf("n=%d rho=%.1f: the interval covered the true mean in %d of 1000 trials, want >= 930", c.n, c.rho, covered)
		}
		if steady < 900 {
			t.Errorf("n=%d rho=%.1f: found steady in %d of 1000 trials, want >= 900", c.n, c.rho, steady)
		}
	}
}

// A window that drifts by 5% of its mean per minute is flagged.
func TestTrendFlagged(t *testing.T) {
	flagged := 0
	for seed := uint64(1); seed <= 100; seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		x := ar1(r, 90, 1000, 20, 0.3)
		for i := range x {
			x[i] += 1000 * 0.05 / 60 * float64(i-30) // +5%/min from the window's start
		}
		v, err := Judge(x, 30)
		if err != nil {
			t.Fatal(err)
		}
		if v.Drifting && !v.Steady() {
			flagged++
		}
		if seed == 1 {
			t.Logf("trend %.2f%%/min [%.2f, %.2f]", v.Trend.PctPerMin, v.Trend.Lo, v.Trend.Hi)
		}
	}
	if flagged < 95 {
		t.Errorf("a 5%%/min drift flagged in %d of 100 trials, want >= 95", flagged)
	}
}

// A warm-up that lasts longer than the rampup is found within 3 s of where it was made, and the
// rampup is said to be short by that much: a warm-up at a lower level (a server still filling
// its cache) and one that climbs from nothing to the steady level, each ending at a known second.
func TestLateWarmupFound(t *testing.T) {
	for _, c := range []struct {
		shape string
		end   int
	}{{"step", 20}, {"step", 41}, {"step", 57}, {"climb", 20}, {"climb", 41}} {
		end, off := c.end, 0
		for seed := uint64(1); seed <= 100; seed++ {
			r := rand.New(rand.NewPCG(seed, uint64(end)))
			x := ar1(r, 150, 1000, 20, 0.3)
			for i := 0; i < end; i++ {
				if c.shape == "step" {
					x[i] -= 300
				} else {
					x[i] *= float64(i) / float64(end) // from nothing, linearly
				}
			}
			v, err := Judge(x, 30)
			if err != nil {
				t.Fatal(err)
			}
			if d := v.WarmupEnd - end; d < -3 || d > 3 {
				off++
			}
			if want := max(0, v.WarmupEnd-30); v.ShortBy != want {
				t.Errorf("short by %d, want %d", v.ShortBy, want)
			}
		}
		t.Logf("%s ending at %d s: more than 3 s off in %d of 100 trials", c.shape, end, off)
		if off > 10 {
			t.Errorf("%s ending at %d s: found more than 3 s off in %d of 100 trials, want at most 10", c.shape, end, off)
		}
	}
}

func TestShortSeries(t *testing.T) {
	if _, err := MeanCI(make([]float64, 9)); err != ErrShort {
		t.Errorf("9 samples: %v, want ErrShort", err)
	}
	iv, err := MeanCI([]float64{5, 5, 5, 5, 5, 5, 5, 5, 5, 5})
	if err != nil || iv.Half != 0 || iv.Mean != 5 {
		t.Errorf("a constant series: %+v %v", iv, err)
	}
}

// A rampup until steady (SettledSoFar, fed one second at a time as the engine does) ends after a
// late warm-up that climbs to the steady level, not inside it: the warm-up it reports is within
// 3 s of where it was made, and the judgement comes within a few seconds of the earliest MSER
// allows (twice the warm-up, MinSamples after it, within 10 s); a series already steady settles
// within its first 20 s, and a series that climbs throughout never settles. (A warm-up flat at a lower
// level that steps up later cannot be seen before the step: SettledSoFar's doc.)
func TestSettledSoFar(t *testing.T) {
	judged := func(x []float64) (n, end int) {
		for n := 1; n <= len(x); n++ {
			if end, ok := SettledSoFar(x[:n]); ok {
				return n, end
			}
		}
		return 0, 0
	}
	for _, c := range []struct {
		shape string
		end   int
	}{{"climb", 20}, {"climb", 41}, {"none", 0}} {
		off, late := 0, 0
		for seed := uint64(1); seed <= 100; seed++ {
			r := rand.New(rand.NewPCG(seed, uint64(c.end)+77))
			x := ar1(r, 200, 1000, 20, 0.3)
			for i := 0; i < c.end; i++ {
				x[i] *= float64(i) / float64(c.end)
			}
			n, end := judged(x)
			if n == 0 {
				t.Fatalf("%s %d seed %d: never judged settled in 200 s", c.shape, c.end, seed)
			}
			if c.end > 0 && (end < c.end-3 || end > c.end+3) {
				off++
			}
			// The earliest MSER allows: the warm-up's end in the first half, MinSamples after it.
			if earliest := max(2*c.end+1, c.end+MinSamples); n < earliest-3 || n > earliest+10 {
				late++
			}
			if seed == 1 {
				t.Logf("%s ending at %d s: judged settled at %d s, warm-up end %d s", c.shape, c.end, n, end)
			}
		}
		t.Logf("%s ending at %d s: end more than 3 s off in %d, judged outside [2w-2, 2w+11] in %d of 100", c.shape, c.end, off, late)
		if off > 10 || late > 10 {
			t.Errorf("%s ending at %d s: end off in %d and judgement off in %d of 100 trials, want at most 10 each", c.shape, c.end, off, late)
		}
	}
	// A climb that never levels off: MSER's minimum stays at the end of the first half.
	r := rand.New(rand.NewPCG(9, 9))
	x := ar1(r, 120, 1000, 20, 0.3)
	for i := range x {
		x[i] += 10 * float64(i)
	}
	if n, end := judged(x); n != 0 {
		t.Errorf("a steady climb was judged settled at %d s (warm-up end %d s)", n, end)
	}
}
