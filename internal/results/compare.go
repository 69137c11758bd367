package results

import (
	"math"

	"github.com/aclements/go-moremath/stats"

	"github.com/cairn-bench/cairn/internal/metrics"
)

// Alpha is the significance level of comparisons, benchstat's default.
const Alpha = 0.05

// Delta compares one figure of a sample (one run or several repeated runs) with the baseline's.
type Delta struct {
	Base, Other Stat
	Change      float64 // relative change of the means: +0.05 is 5% more
	// P is the two-sided Mann-Whitney U test's p-value, or -1 when either side has fewer than
	// two values (no spread to judge a difference against).
	P float64
}

// Significant reports whether the difference exceeds the run-to-run spread at Alpha.
func (d Delta) Significant() bool { return d.P >= 0 && d.P < Alpha }

// Testable reports whether the test could have found the difference significant at all: with
// too few runs a side, even two samples that do not overlap give p ≥ Alpha.
func (d Delta) Testable() bool { return d.P >= 0 && MinP(d.Base.N, d.Other.N) < Alpha }

// MinP is the smallest p-value the two-sided Mann-Whitney U test can give samples of n1 and n2
// values: the samples apart, the U statistic at an end of its exact distribution, which has
// C(n1+n2, n1) equally likely orderings, so p = 2 / C(n1+n2, n1).
func MinP(n1, n2 int) float64 {
	if n1 < 1 || n2 < 1 {
		return 1
	}
	c := 1.0 // C(n1+n2, n1), built up a factor at a time
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// MinRuns is the fewest runs a side, the same on both, with which the test can reach Alpha: 4
// (2/C(8,4) = 0.029; 3 a side give at best 2/C(6,3) = 0.1).
func MinRuns() int {
	n := 2
	for MinP(n, n) >= Alpha {
		n++
	}
	return n
}

// Compare builds the delta of two samples of one figure.
func Compare(base, other []float64) Delta {
	d := Delta{Base: NewStat(base), Other: NewStat(other), P: -1}
	if d.Base.N > 0 && d.Other.N > 0 && d.Base.Mean != 0 {
		d.Change = d.Other.Mean/d.Base.Mean - 1
	}
	if len(base) >= 2 && len(other) >= 2 {
		if r, err := stats.MannWhitneyUTest(base, other, stats.LocationDiffers); err == nil {
			d.P = r.P
		} else {
			// All values identical on both sides: no evidence of a difference.
			d.P = 1
		}
	}
	return d
}

// Figure is one named figure of a run, read by Values.
type Figure struct {
	Name         string
	HigherBetter bool
	Of           func(d *Document) (float64, bool)
}

// extraFigures are the figures workloads add to comparisons of runs (RegisterFigure).
var extraFigures []Figure

// RegisterFigure adds a figure of a workload's own (fanout's physical statements per second) to
// every comparison of runs, after the latencies; its Of reports false for a run without it, and a
// figure no compared run has is left out. Workloads call it from init.
func RegisterFigure(f Figure) { extraFigures = append(extraFigures, f) }

// RegisteredFigures are the workloads' own figures (RegisterFigure), for reports.
func RegisteredFigures() []Figure { return extraFigures }

// RunFigures are the figures 'results compare' sets side by side for runs of a workload whose
// transaction types are types and whose main transaction is main.
func RunFigures(headline, main string, types []string) []Figure {
	f := []Figure{
		{headline, true, func(d *Document) (float64, bool) { _, v, ok := d.Headline(); return v, ok }},
		{"TPM", true, func(d *Document) (float64, bool) {
			if d.Result.TPM == nil {
				return 0, false
			}
			return float64(*d.Result.TPM), true
		}},
	}
	lat := func(txn string, pick func(t *Txn) float64) func(d *Document) (float64, bool) {
		return func(d *Document) (float64, bool) {
			t := d.Txns[txn]
			if t == nil || t.Count == 0 {
				return 0, false
			}
			return pick(t), true
		}
	}
	f = append(f,
		Figure{main + " p50 ms", false, lat(main, func(t *Txn) float64 { return t.LatencyMs.P50 })},
		Figure{main + " p95 ms", false, lat(main, func(t *Txn) float64 { return t.LatencyMs.P95 })},
		Figure{main + " p99 ms", false, lat(main, func(t *Txn) float64 { return t.LatencyMs.P99 })})
	for _, ty := range types {
		if ty != main {
			f = append(f, Figure{ty + " p95 ms", false, lat(ty, func(t *Txn) float64 { return t.LatencyMs.P95 })})
		}
	}
	f = append(f, extraFigures...)
	f = append(f,
		Figure{"errors", false, func(d *Document) (float64, bool) { return float64(d.TotalErrors()), true }},
		Figure{"client CPU µs/txn", false, func(d *Document) (float64, bool) { return d.Client.CPUusPerTxn, d.Client.CPUusPerTxn > 0 }},
		Figure{"server CPU µs/txn", false, func(d *Document) (float64, bool) {
			if d.Server == nil || d.Server.CPUusPerTxn == 0 {
				return 0, false
			}
			return d.Server.CPUusPerTxn, true
		}},
		Figure{"host CPU busy %", false, func(d *Document) (float64, bool) {
			c, _, ok := d.WindowCPU()
			return c.Busy(), ok
		}},
		Figure{"disk w/s", false, dataDisk(func(r *metrics.DiskRates) (float64, bool) { return r.WritesPerS, true })},
		Figure{"disk write MB/s", false, dataDisk(func(r *metrics.DiskRates) (float64, bool) { return r.WriteMBs, true })},
		Figure{"disk r/s", false, dataDisk(func(r *metrics.DiskRates) (float64, bool) { return r.ReadsPerS, true })},
		Figure{"disk await ms", false, dataDisk(func(r *metrics.DiskRates) (float64, bool) {
			if r.AwaitMs == nil {
				return 0, false
			}
			return *r.AwaitMs, true
		})})
	return f
}

// dataDisk reads a figure of the window's I/O on the first device of a run's disk I/O: the one
// under the data directory (docs/result-format.md#disk-io).
func dataDisk(pick func(r *metrics.DiskRates) (float64, bool)) func(d *Document) (float64, bool) {
	return func(d *Document) (float64, bool) {
		io := DiskIOOf(d)
		if io == nil || len(io.Devices) == 0 || io.Devices[0].Window == nil {
			return 0, false
		}
		return pick(io.Devices[0].Window)
	}
}

// Values reads one figure from each of a group's runs, skipping runs that lack it.
func (f Figure) Values(group []*Document) []float64 {
	var v []float64
	for _, d := range group {
		if x, ok := f.Of(d); ok {
			v = append(v, x)
		}
	}
	return v
}

// StepDelta compares the steps of two profiles that ran the same VU count.
type StepDelta struct {
	VU       int
	Headline Delta
	P95      Delta
}

// CompareProfiles matches steps by VU count. Geomean is the geometric mean over matched steps of
// other/base headline (benchstat's summary of a set of ratios), and GeomeanP95 the same of p95;
// both are 0 when no step matched.
func CompareProfiles(base, other *Profile) (steps []StepDelta, geomean, geomeanP95 float64) {
	var logSum, logSumP float64
	n, np := 0, 0
	for _, a := range base.Steps {
		b := other.StepAt(a.VU)
		if b == nil || a.Summary.Headline.N == 0 || b.Summary.Headline.N == 0 {
			continue
		}
		sd := StepDelta{VU: a.VU,
			Headline: Compare(a.Summary.Headline.Values, b.Summary.Headline.Values),
			P95:      Compare(a.Summary.P95ms.Values, b.Summary.P95ms.Values)}
		steps = append(steps, sd)
		if sd.Headline.Base.Mean > 0 && sd.Headline.Other.Mean > 0 {
			logSum += math.Log(sd.Headline.Other.Mean / sd.Headline.Base.Mean)
			n++
		}
		if sd.P95.Base.Mean > 0 && sd.P95.Other.Mean > 0 {
			logSumP += math.Log(sd.P95.Other.Mean / sd.P95.Base.Mean)
			np++
		}
	}
	if n > 0 {
		geomean = math.Exp(logSum / float64(n))
	}
	if np > 0 {
		geomeanP95 = math.Exp(logSumP / float64(np))
	}
	return steps, geomean, geomeanP95
}
