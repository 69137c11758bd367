package oltp

import (
	"math"
	"regexp"
	"testing"
)

func TestRandDeterministic(t *testing.T) {
	a, b, c := NewRand(42, 1), NewRand(42, 1), NewRand(42, 2)
	same := 0
	for i := 0; i < 1000; i++ {
		x, y, z := a.Uint64(), b.Uint64(), c.Uint64()
		if x != y {
			t.Fatalf("draw %d: the same seed and stream gave %d and %d", i, x, y)
		}
		if x == z {
			same++
		}
	}
	if same > 0 {
		t.Errorf("streams 1 and 2 of one seed agree on %d of 1000 draws", same)
	}
	// A stream's first numbers are fixed for good: the prepared data depends on them.
	r := NewRand(1, 0)
	got := [3]uint64{r.Uint64(), r.Uint64(), r.Uint64()}
	r2 := NewRand(1, 0)
	if want := [3]uint64{r2.Uint64(), r2.Uint64(), r2.Uint64()}; got != want {
		t.Fatalf("not reproducible: %v %v", got, want)
	}
}

func TestFloat64AndUniform(t *testing.T) {
	r := NewRand(7, 0)
	var hist [10]int
	const n = 200000
	for i := 0; i < n; i++ {
		f := r.Float64()
		if f < 0 || f >= 1 {
			t.Fatalf("Float64 %v outside [0, 1)", f)
		}
		u := r.Uniform(1, 10)
		if u < 1 || u > 10 {
			t.Fatalf("Uniform(1, 10) = %d", u)
		}
		hist[u-1]++
	}
	for i, c := range hist {
		if math.Abs(float64(c)-n/10) > 0.03*n/10 {
			t.Errorf("Uniform(1, 10): %d drawn %d times of %d, want about %d", i+1, c, n, n/10)
		}
	}
	if u := r.Uniform(5, 5); u != 5 {
		t.Errorf("Uniform(5, 5) = %d", u)
	}
}

func dist(t *testing.T, o DistOptions) *Dist {
	t.Helper()
	d, err := NewDist(o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDistsInRangeAndDeterministic(t *testing.T) {
	for _, name := range Dists {
		o := DefaultDist()
		o.Type = name
		for _, rg := range [][2]uint32{{1, 1}, {1, 2}, {1, 10}, {1, 1000}, {5, 100005}, {1, 10_000_000}} {
			d1, d2 := dist(t, o), dist(t, o)
			r1, r2 := NewRand(3, 9), NewRand(3, 9)
			for i := 0; i < 20000; i++ {
				x, y := d1.Draw(&r1, rg[0], rg[1]), d2.Draw(&r2, rg[0], rg[1])
				if x != y {
					t.Fatalf("%s: not deterministic", name)
				}
				if x < rg[0] || x > rg[1] {
					t.Fatalf("%s: draw %d outside [%d, %d]", name, x, rg[0], rg[1])
				}
			}
		}
	}
}

// draws returns the share of n draws over [1, size] that satisfy in.
func share(d *Dist, size uint32, n int, in func(uint32) bool) float64 {
	r := NewRand(11, 0)
	hit := 0
	for i := 0; i < n; i++ {
		if in(d.Draw(&r, 1, size)) {
			hit++
		}
	}
	return float64(hit) / float64(n)
}

func TestSpecialShape(t *testing.T) {
	// sysbench's default: 75% of the draws go to 1% of the keys, around the middle of the range.
	const size = 100000
	d := dist(t, DefaultDist())
	tt := float64(size - 1)
	lo, hi := uint32(1+tt/2-tt*0.005), uint32(1+tt/2+tt*0.005+1)
	s := share(d, size, 200000, func(k uint32) bool { return k >= lo && k <= hi })
	// 75% special plus the few gaussian draws that land in the band.
	if s < 0.75 || s > 0.78 {
		t.Errorf("special: %.3f of the draws in the middle 1%% of the keys, want about 0.76", s)
	}
	// sb_rand_special's quirk: the special draws only reach the upper three quarters of the band.
	q := lo + (hi-lo)/4
	if low := share(d, size, 200000, func(k uint32) bool { return k >= lo && k < q-2 }); low > 0.01 {
		t.Errorf("special: %.3f of the draws in the lowest quarter of the band; sysbench puts only gaussian ones there", low)
	}
	// Without special keys it is the gaussian of 12 draws.
	o := DefaultDist()
	o.SpecRes = 0
	o.SpecPct = 0
	if s := share(dist(t, o), size, 100000, func(k uint32) bool { return k >= lo && k <= hi }); s > 0.1 {
		t.Errorf("special with --rand-spec-res 0: %.3f in the band", s)
	}
}

func TestGaussianShape(t *testing.T) {
	const size = 100000
	o := DefaultDist()
	o.Type = DistGaussian
	d := dist(t, o)
	r := NewRand(5, 0)
	var sum, sq float64
	const n = 100000
	for i := 0; i < n; i++ {
		x := float64(d.Draw(&r, 1, size))
		sum += x
		sq += x * x
	}
	mean := sum / n
	sd := math.Sqrt(sq/n - mean*mean)
	// The mean of 12 uniforms: centred, with standard deviation size/sqrt(12*12).
	if math.Abs(mean-size/2) > 0.01*size {
		t.Errorf("gaussian mean %.0f, want about %d", mean, size/2)
	}
	if want := size / 12.0; math.Abs(sd-want) > 0.05*want {
		t.Errorf("gaussian standard deviation %.0f, want about %.0f", sd, want)
	}
}

func TestParetoShape(t *testing.T) {
	// With h = 0.2, 80% of the draws fall in the lowest 20% of the keys.
	o := DefaultDist()
	o.Type = DistPareto
	if s := share(dist(t, o), 100000, 100000, func(k uint32) bool { return k <= 20000 }); math.Abs(s-0.8) > 0.01 {
		t.Errorf("pareto h=0.2: %.3f of the draws in the lowest 20%%, want 0.80", s)
	}
}

func TestZipfianShape(t *testing.T) {
	// P(k) is proportional to 1/k^0.8.
	const size = 1000
	o := DefaultDist()
	o.Type = DistZipfian
	d := dist(t, o)
	hn := 0.0
	for k := 1; k <= size; k++ {
		hn += math.Pow(float64(k), -0.8)
	}
	const n = 400000
	p1 := share(d, size, n, func(k uint32) bool { return k == 1 })
	p2 := share(d, size, n, func(k uint32) bool { return k == 2 })
	if want := 1 / hn; math.Abs(p1-want) > 0.05*want {
		t.Errorf("zipfian: P(1) = %.4f, want %.4f", p1, want)
	}
	if r := p2 / p1; math.Abs(r-math.Pow(2, -0.8)) > 0.03 {
		t.Errorf("zipfian: P(2)/P(1) = %.3f, want %.3f", r, math.Pow(2, -0.8))
	}
	// Exponent 0 is uniform.
	o.ZipfExp = 0
	if s := share(dist(t, o), 100, 100000, func(k uint32) bool { return k <= 50 }); math.Abs(s-0.5) > 0.01 {
		t.Errorf("zipfian exponent 0: %.3f in the lower half", s)
	}
}

func TestDistOptionsRejected(t *testing.T) {
	for _, o := range []DistOptions{
		{Type: "normal", SpecIter: 12},
		{Type: DistSpecial, SpecIter: 0},
		{Type: DistSpecial, SpecIter: 12, SpecPct: 101},
		{Type: DistSpecial, SpecIter: 12, SpecRes: 100},
		{Type: DistPareto, SpecIter: 12, ParetoH: 1},
		{Type: DistZipfian, SpecIter: 12, ZipfExp: -1},
	} {
		if _, err := NewDist(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

func TestRandStr(t *testing.T) {
	r := NewRand(1, 1)
	c := make([]byte, len(CTemplate))
	pad := make([]byte, len(PadTemplate))
	reC := regexp.MustCompile(`^[0-9]{11}(-[0-9]{11}){9}$`)
	rePad := regexp.MustCompile(`^[0-9]{11}(-[0-9]{11}){4}$`)
	if len(CTemplate) != 119 || len(PadTemplate) != 59 {
		t.Fatalf("templates of %d and %d characters, want 119 and 59 as oltp_common.lua", len(CTemplate), len(PadTemplate))
	}
	var digits [10]int
	for i := 0; i < 2000; i++ {
		r.RandStr(c, CTemplate)
		r.RandStr(pad, PadTemplate)
		if !reC.Match(c) || !rePad.Match(pad) {
			t.Fatalf("c %q, pad %q do not follow the templates", c, pad)
		}
		for _, b := range c {
			if b != '-' {
				digits[b-'0']++
			}
		}
	}
	for d, n := range digits {
		if math.Abs(float64(n)-22000) > 0.03*22000 {
			t.Errorf("digit %d drawn %d times of 220000", d, n)
		}
	}
	b := make([]byte, 4)
	r.RandStr(b, "@@x#")
	if b[0] < 'a' || b[0] > 'z' || b[2] != 'x' || b[3] < '0' || b[3] > '9' {
		t.Errorf("RandStr(\"@@x#\") = %q", b)
	}
}
