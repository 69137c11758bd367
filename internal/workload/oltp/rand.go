package oltp

import (
	"fmt"
	"math"
)

// Rand is sysbench's generator, xoroshiro128+ (src/xoroshiro128plus.h, 1.0.20), with the same
// double conversion as sb_rand_uniform_double (src/sb_rand.h). Only the seeding differs: sysbench
// seeds each thread from libc random(), cairn from --seed and a stream number, so that a seed
// reproduces a load and a run. It is a value type used by one goroutine: no lock, no allocation.
type Rand struct{ s0, s1 uint64 }

// NewRand seeds a stream: the same (seed, stream) always gives the same numbers. The state is
// expanded with splitmix64, as xoroshiro's authors recommend, so that nearby seeds do not give
// correlated streams.
func NewRand(seed, stream uint64) Rand {
	x := seed ^ (stream * 0x9e3779b97f4a7c15) ^ 0x6a09e667f3bcc909
	next := func() uint64 {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return z ^ (z >> 31)
	}
	r := Rand{next(), next()}
	if r.s0 == 0 && r.s1 == 0 {
		r.s1 = 1 // the one state xoroshiro cannot leave
	}
	return r
}

// Uint64 is xoroshiro_next.
func (r *Rand) Uint64() uint64 {
	s0, s1 := r.s0, r.s1
	res := s0 + s1
	s1 ^= s0
	r.s0 = (s0<<55 | s0>>9) ^ s1 ^ (s1 << 14)
	r.s1 = s1<<36 | s1>>28
	return res
}

// Float64 is sb_rand_uniform_double: the top 52 bits as the mantissa of a double in [1, 2), minus 1.
func (r *Rand) Float64() float64 {
	return math.Float64frombits(0x3FF<<52|r.Uint64()>>12) - 1.0
}

// Uniform is sb_rand_uniform: an integer in [a, b], every value equally likely.
func (r *Rand) Uniform(a, b uint32) uint32 {
	return uint32(float64(a) + r.Float64()*float64(b-a+1))
}

// The distributions of sysbench's --rand-type.
const (
	DistUniform  = "uniform"
	DistSpecial  = "special"
	DistGaussian = "gaussian"
	DistPareto   = "pareto"
	DistZipfian  = "zipfian"
)

// Dists lists the distributions, the default (sysbench 1.0.20's) first.
var Dists = []string{DistSpecial, DistUniform, DistGaussian, DistPareto, DistZipfian}

// DistOptions are sysbench's --rand-* options. The defaults are sysbench's (src/sb_rand.c).
type DistOptions struct {
	Type     string  `json:"type" opt:"dist" alias:"rand-type" enum:"special,uniform,gaussian,pareto,zipfian" help:"key distribution: special, uniform, gaussian, pareto or zipfian (sysbench's --rand-type)"`
	SpecIter int     `json:"rand_spec_iter" opt:"rand-spec-iter" min:"1" help:"gaussian and special: uniform draws averaged"`
	SpecPct  int     `json:"rand_spec_pct" opt:"rand-spec-pct" min:"0" max:"100" help:"special: percentage of the keys that are hot"`
	SpecRes  int     `json:"rand_spec_res" opt:"rand-spec-res" min:"0" max:"100" help:"special: percentage of the draws that go to the hot keys"`
	ParetoH  float64 `json:"rand_pareto_h" opt:"rand-pareto-h" help:"pareto: the parameter h"`
	ZipfExp  float64 `json:"rand_zipfian_exp" opt:"rand-zipfian-exp" help:"zipfian: the exponent (theta)"` // from sysbench 1.1 (master): 1.0.20 has no zipfian
}

// DefaultDist is sysbench 1.0.20's default: --rand-type=special --rand-spec-iter=12
// --rand-spec-pct=1 --rand-spec-res=75 --rand-pareto-h=0.2 (and 1.1's --rand-zipfian-exp=0.8).
func DefaultDist() DistOptions {
	return DistOptions{Type: DistSpecial, SpecIter: 12, SpecPct: 1, SpecRes: 75, ParetoH: 0.2, ZipfExp: 0.8}
}

// Dist draws keys in [a, b] with one of sysbench's distributions. The constants that sb_rand_init
// precomputes are computed once here too, so a draw does no division or logarithm it can avoid.
type Dist struct {
	kind      int
	iterMult  float64 // 1 / iter
	iter      int
	pctMult   float64 // pct / 100
	pct2Mult  float64 // pct / 200
	resMult   float64 // 100 / (100 - res)
	paretoPow float64 // log(h) / log(1-h)
	zipfExp   float64
	zipfS     float64
	zipfHX1   float64 // hIntegral(1.5) - 1
	zipfHN    float64 // hIntegral(n + 0.5) for the n of the last draw
	zipfHNFor uint32
	zipfHNSet bool
}

const (
	kUniform = iota
	kSpecial
	kGaussian
	kPareto
	kZipfian
)

// NewDist checks the options and precomputes the distribution's constants.
func NewDist(o DistOptions) (*Dist, error) {
	d := &Dist{}
	switch o.Type {
	case DistUniform:
		d.kind = kUniform
	case DistSpecial:
		d.kind = kSpecial
	case DistGaussian:
		d.kind = kGaussian
	case DistPareto:
		d.kind = kPareto
	case DistZipfian:
		d.kind = kZipfian
	default:
		return nil, fmt.Errorf("--dist %q: use one of special (sysbench 1.0's default), uniform, gaussian, pareto or zipfian", o.Type)
	}
	if o.SpecIter < 1 {
		return nil, fmt.Errorf("--rand-spec-iter %d: need at least 1", o.SpecIter)
	}
	if o.SpecPct < 0 || o.SpecPct > 100 {
		return nil, fmt.Errorf("--rand-spec-pct %d: must be a percentage, 0 to 100", o.SpecPct)
	}
	if o.SpecRes < 0 || o.SpecRes >= 100 {
		return nil, fmt.Errorf("--rand-spec-res %d: must be a percentage, 0 to 99", o.SpecRes)
	}
	if d.kind == kPareto && !(o.ParetoH > 0 && o.ParetoH < 1) {
		return nil, fmt.Errorf("--rand-pareto-h %g: must be between 0 and 1 (exclusive)", o.ParetoH)
	}
	if d.kind == kZipfian && !(o.ZipfExp >= 0) {
		return nil, fmt.Errorf("--rand-zipfian-exp %g: must be 0 or more", o.ZipfExp)
	}
	// sb_rand_init's precomputed constants.
	d.iter = o.SpecIter
	d.iterMult = 1.0 / float64(o.SpecIter)
	d.pctMult = float64(o.SpecPct) / 100.0
	d.pct2Mult = float64(o.SpecPct) / 200.0
	d.resMult = 100.0 / (100.0 - float64(o.SpecRes))
	d.paretoPow = math.Log(o.ParetoH) / math.Log(1.0-o.ParetoH)
	d.zipfExp = o.ZipfExp
	d.zipfS = 2 - hIntegralInverse(hIntegral(2.5, o.ZipfExp)-h(2, o.ZipfExp), o.ZipfExp)
	d.zipfHX1 = hIntegral(1.5, o.ZipfExp) - 1
	return d, nil
}

// Draw is sb_rand_default(a, b) for the configured distribution.
func (d *Dist) Draw(r *Rand, a, b uint32) uint32 {
	switch d.kind {
	case kSpecial:
		return d.special(r, a, b)
	case kGaussian:
		return d.gaussian(r, a, b)
	case kPareto:
		return a + uint32(float64(b-a+1)*math.Pow(r.Float64(), d.paretoPow))
	case kZipfian:
		return a + d.zipfian(r, b-a+1) - 1
	}
	return r.Uniform(a, b)
}

// gaussian is sb_rand_gaussian: the mean of iter uniform draws over the range.
func (d *Dist) gaussian(r *Rand, a, b uint32) uint32 {
	t := float64(b - a + 1)
	sum := 0.0
	for i := 0; i < d.iter; i++ {
		sum += r.Float64() * t
	}
	return a + uint32(sum*d.iterMult)
}

// special is sb_rand_special (sysbench 1.0.20, src/sb_rand.c), transcribed with its quirks: res%
// of the draws fall uniformly in a band of pct% of the keys around the middle of the range, the rest
// follow the gaussian above. Because the same uniform number both decides which case applies and
// places the key inside the band, only the upper part of the band (the last res% of it) is hit.
func (d *Dist) special(r *Rand, a, b uint32) uint32 {
	t := float64(b - a)
	rangeSize := t * d.resMult
	rnd := r.Float64()
	res := rnd * rangeSize
	if res < t {
		sum := 0.0
		for i := 0; i < d.iter; i++ {
			sum += r.Float64()
		}
		return uint32(float64(a) + sum*t*d.iterMult)
	}
	dd := t * d.pctMult
	res = rnd * (dd + 1)
	res += t/2 - t*d.pct2Mult
	return a + uint32(res)
}

// zipfian is sb_rand_zipfian_int from sysbench 1.1 (src/sb_rand.c on master): rejection-inversion
// sampling of a bounded Zipf distribution over [1, n] (Hörmann and Derflinger 1996, as in Apache
// Commons RNG's RejectionInversionZipfSampler).
func (d *Dist) zipfian(r *Rand, n uint32) uint32 {
	if !d.zipfHNSet || d.zipfHNFor != n {
		d.zipfHN = hIntegral(float64(n)+0.5, d.zipfExp)
		d.zipfHNFor, d.zipfHNSet = n, true
	}
	e := d.zipfExp
	for {
		u := d.zipfHN + r.Float64()*(d.zipfHX1-d.zipfHN)
		x := hIntegralInverse(u, e)
		kf := x + 0.5
		var k uint32
		switch {
		case kf < 1:
			k = 1
		case kf > float64(n):
			k = n
		default:
			k = uint32(kf)
		}
		if float64(k)-x <= d.zipfS || u >= hIntegral(float64(k)+0.5, e)-h(float64(k), e) {
			return k
		}
	}
}

// hIntegral is H(x) = (x^(1-e) - 1) / (1-e), or log(x) when e = 1.
func hIntegral(x, e float64) float64 {
	logX := math.Log(x)
	return helper2((1-e)*logX) * logX
}

// h is 1 / x^e.
func h(x, e float64) float64 { return math.Exp(-e * math.Log(x)) }

// hIntegralInverse is the inverse of hIntegral.
func hIntegralInverse(x, e float64) float64 {
	t := x * (1 - e)
	if t < -1 {
		t = -1 // numerical error can push it below the domain
	}
	return math.Exp(helper1(t) * x)
}

// helper1 is log(1+x)/x, with a Taylor series near 0.
func helper1(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(0.33333333333333333-0.25*x))
}

// helper2 is (exp(x)-1)/x, with a Taylor series near 0.
func helper2(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*0.33333333333333333*(1+0.25*x))
}

// The templates of oltp_common.lua: groups of 11 random digits separated by dashes; c has 10
// groups (119 characters, in a CHAR(120) column), pad 5 (59 characters, in a CHAR(60)).
const (
	CTemplate   = "###########-###########-###########-###########-###########-###########-###########-###########-###########-###########"
	PadTemplate = "###########-###########-###########-###########-###########"
)

// RandStr is sb_rand_str: every '#' of the template becomes a digit drawn with sb_rand_uniform('0',
// '9'), every '@' a lowercase letter, anything else is copied. dst must be as long as the template.
func (r *Rand) RandStr(dst []byte, template string) {
	for i := 0; i < len(template); i++ {
		switch template[i] {
		case '#':
			dst[i] = byte(r.Uniform('0', '9'))
		case '@':
			dst[i] = byte(r.Uniform('a', 'z'))
		default:
			dst[i] = template[i]
		}
	}
}
