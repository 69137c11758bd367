package results

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Welch's interval of the difference covers the true difference in about 95% of seeded trials
// (at least 93% of 1000) for groups of unequal size and spread, and the repeats it asks for at an
// effect of one standard deviation are Cohen's (1988, table 2.4.1: 16 a side at d = 1, 80% power,
// 5% two-sided, by the normal approximation).
func TestDifferCoverage(t *testing.T) {
	covered := 0
	for seed := uint64(1); seed <= 1000; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		a, b := make([]float64, 5), make([]float64, 8)
		for i := range a {
			a[i] = 1000 + 20*r.NormFloat64()
		}
		for i := range b {
			b[i] = 950 + 40*r.NormFloat64()
		}
		d, ok := Differ(a, b)
		if !ok {
			t.Fatal("no difference of two groups with a spread")
		}
		// The interval is of the difference divided by a's mean; the truth is −50.
		ma := 0.0
		for _, v := range a {
			ma += v / float64(len(a))
		}
		if lo, hi := d.Lo*ma, d.Hi*ma; lo <= -50 && -50 <= hi {
			covered++
		}
	}
	t.Logf("covered %d/1000", covered)
	if covered < 930 {
		t.Errorf("Welch's interval covered the true difference in %d of 1000 trials, want >= 930", covered)
	}
	// Two groups one pooled standard deviation apart.
	d, _ := Differ([]float64{9, 10, 11}, []float64{10, 11, 12})
	if math.Abs(d.EffectSize-1) > 1e-12 || d.Repeats != 16 {
		t.Errorf("d = %v, %d repeats a side; want 1 and 16", d.EffectSize, d.Repeats)
	}
	if _, ok := Differ([]float64{1000}, []float64{900, 910}); ok {
		t.Error("a single run has a difference interval")
	}
}
