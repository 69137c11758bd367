package results

import (
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"
)

// Difference is the difference of one figure's means over two groups of repeated runs, with its
// 95% interval, its effect size, and the repeats a side that would resolve a difference of that
// size (docs/steady-state.md#comparing-repeats).
type Difference struct {
	// Change is other's mean over base's, less 1; Lo and Hi bound it: Welch's t interval of the
	// difference of the means (Welch 1947, the Welch–Satterthwaite degrees of freedom), divided
	// by base's mean.
	Change, Lo, Hi float64
	// EffectSize is Cohen's d: the difference of the means over the pooled standard deviation.
	EffectSize float64
	// Repeats is the runs a side with which a two-sided test at Alpha would find a difference of
	// EffectSize with 80% power, by the normal approximation n = 2 (z₀.₉₇₅ + z₀.₈)² / d² (Cohen
	// 1988), never fewer than MinRuns (below which the Mann-Whitney test cannot reach Alpha):
	// approximate. 0 when the groups' means are equal.
	Repeats int
}

// Differ is the difference of other against base; ok is false unless each has at least two
// values, a spread, and base a mean other than 0.
func Differ(base, other []float64) (Difference, bool) {
	na, nb := float64(len(base)), float64(len(other))
	if na < 2 || nb < 2 {
		return Difference{}, false
	}
	ma, mb := stats.Mean(base), stats.Mean(other)
	va, vb := stats.Variance(base), stats.Variance(other)
	if ma == 0 || va+vb == 0 {
		return Difference{}, false
	}
	qa, qb := va/na, vb/nb
	se := math.Sqrt(qa + qb)
	df := (qa + qb) * (qa + qb) / (qa*qa/(na-1) + qb*qb/(nb-1))
	t := stats.InvCDF(stats.TDist{V: df})(1 - Alpha/2)
	diff := mb - ma
	d := Difference{Change: diff / ma, Lo: (diff - t*se) / ma, Hi: (diff + t*se) / ma}
	pooled := math.Sqrt(((na-1)*va + (nb-1)*vb) / (na + nb - 2))
	d.EffectSize = diff / pooled
	if d.EffectSize != 0 {
		z := stats.NormalDist{Mu: 0, Sigma: 1}
		k := z.InvCDF(1-Alpha/2) + z.InvCDF(0.8)
		d.Repeats = max(MinRuns(), int(math.Ceil(2*k*k/(d.EffectSize*d.EffectSize))))
	}
	return d, true
}

// RepeatsInterval is the mean of one figure over repeated runs with the half-width of its 95%
// interval, Student's t with n − 1 degrees of freedom: the runs taken as independent draws of the
// same conditions. ok is false below two runs.
func RepeatsInterval(v []float64) (mean, half float64, ok bool) {
	if len(v) < 2 {
		return 0, 0, false
	}
	n := float64(len(v))
	t := stats.InvCDF(stats.TDist{V: n - 1})(1 - Alpha/2)
	return stats.Mean(v), t * stats.StdDev(v) / math.Sqrt(n), true
}

// PowerTimes are the figures of the power test's timed executions (TPC-H's 22 queries and two
// refresh functions: the timings of stream 0), each its milliseconds, in the order of the run's
// types (Q1 to Q22, RF1, RF2); none for a run without a power test. An execution that failed has
// no figure.
func PowerTimes(d *Document) []Figure {
	var f []Figure
	for _, name := range d.TxnOrder {
		if !slices.ContainsFunc(d.Timings, func(t Timing) bool { return t.Stream == 0 && t.Name == name }) {
			continue
		}
		f = append(f, Figure{Name: name, Of: func(d *Document) (float64, bool) {
			for _, t := range d.Timings {
				if t.Stream == 0 && t.Name == name && t.Error == "" {
					return 1000 * t.Seconds, true
				}
			}
			return 0, false
		}})
	}
	return f
}
