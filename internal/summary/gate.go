package summary

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/resultstore"
)

// GateInputError is a regression gate asked of what it cannot judge (exit 2).
type GateInputError struct{ Msg string }

func (e *GateInputError) Error() string { return e.Msg }
func (e *GateInputError) BadInput()     {}

// Regression is the gate's verdict when it fails (exit 1): the FAIL lines say which figures.
type Regression struct {
	Failed, Gated int
	PCT           float64
}

func (e *Regression) Error() string {
	return fmt.Sprintf("regression: %d of %d gated figures worse than the baseline by more than %g%%, beyond the run-to-run spread (the FAIL lines above)",
		e.Failed, e.Gated, e.PCT)
}

// GateAt reads BASE and NEW (each an id, or a group of repeated runs like 3,4,5) from the store
// at path and gates NEW on BASE (Gate).
func GateAt(ctx context.Context, path string, args []string, pct float64, by string, w io.Writer) error {
	if len(args) != 2 {
		return &GateInputError{fmt.Sprintf("--fail-on-regression compares two sides, BASE NEW (each an id or a group like 3,4,5), got %d", len(args))}
	}
	if !(pct > 0 && pct < 100) {
		return &GateInputError{fmt.Sprintf("--fail-on-regression %g: give the largest tolerated loss in percent, above 0 and below 100", pct)}
	}
	groups, err := resultstore.ReadGroups(ctx, path, [][]string{strings.Split(args[0], ","), strings.Split(args[1], ",")}, true)
	if err != nil {
		return err
	}
	return Gate(w, groups, pct, by)
}

// Gate writes one PASS or FAIL line per gated figure: the headline of two runs (or groups of
// repeated runs), or the headline of each VU step of two profiles, matched by VU count. A figure
// fails when NEW is worse than BASE by more than pct percent and the two-sided Mann-Whitney U test
// over the repeats finds the difference significant (p < results.Alpha). A difference the test
// cannot judge — fewer repeats than it needs (results.MinRuns), or single runs — passes, marked
// "untestable": the gate fails only on evidence (docs/ci.md). A BASE step that NEW lacks fails.
// It returns a *Regression when any figure failed.
func Gate(w io.Writer, groups [][]results.Loaded, pct float64, by string) error {
	base, other := groups[0], groups[len(groups)-1]
	if base[0].Study != nil || other[0].Study != nil {
		return &GateInputError{"--fail-on-regression gates runs and profiles; compare a study's cases without it"}
	}
	// A result that did not measure what was planned is no evidence either way.
	for _, g := range [][]results.Loaded{base, other} {
		for _, l := range g {
			var rs []results.Reason
			switch {
			case l.Run != nil:
				rs = l.Run.NotAsPlanned
			case l.Profile != nil:
				rs = l.Profile.Reasons()
			}
			if len(rs) > 0 {
				return &GateInputError{fmt.Sprintf("--fail-on-regression: result %s did not measure what was planned (%s): the gate judges only results measured as planned; run it again",
					l.ID, results.MarkText(rs))}
			}
		}
	}
	switch by {
	case GateByTest:
	case GateByInterval:
		if base[0].Profile != nil || other[0].Profile != nil {
			return &GateInputError{"--gate-by interval gates runs and groups of runs; gate profiles by the test (the default)"}
		}
		return gateByInterval(w, base, other, pct)
	default:
		return &GateInputError{fmt.Sprintf("--gate-by %q: give %s (the default) or %s", by, GateByTest, GateByInterval)}
	}
	fmt.Fprintf(w, "\nregression gate: a figure fails when B is worse than A by more than %g%% and p < %.2f\n", pct, results.Alpha)
	failed, gated := 0, 0
	verdict := func(label string, d results.Delta) {
		gated++
		ok, why := gateVerdict(d, pct)
		word := "PASS"
		if !ok {
			word, failed = "FAIL", failed+1
		}
		fmt.Fprintf(w, "%s  %s: A %s → B %s: %s\n", word, label, gateValue(d.Base), gateValue(d.Other), why)
	}
	if base[0].Profile != nil {
		bp, op := base[0].Profile, other[0].Profile
		name := bp.HeadlineName()
		steps, _, _ := results.CompareProfiles(bp, op)
		matched := map[int]results.StepDelta{}
		for _, s := range steps {
			matched[s.VU] = s
		}
		for _, s := range bp.Steps {
			if sd, ok := matched[s.VU]; ok {
				verdict(fmt.Sprintf("%d VUs %s", s.VU, name), sd.Headline)
				continue
			}
			gated++
			failed++
			fmt.Fprintf(w, "FAIL  %d VUs %s: B measured no step at %d VUs\n", s.VU, name, s.VU)
		}
	} else {
		name, va, vb := headlineValues(base, other)
		verdict(name, results.Compare(va, vb))
	}
	if failed > 0 {
		return &Regression{Failed: failed, Gated: gated, PCT: pct}
	}
	return nil
}

// gateVerdict judges one headline delta (higher is better) and says why.
func gateVerdict(d results.Delta, pct float64) (pass bool, why string) {
	switch {
	case d.Base.N == 0:
		return true, "A measured no headline: nothing to gate"
	case d.Other.N == 0:
		return false, "B measured no headline"
	}
	loss := -100 * d.Change
	change := fmt.Sprintf("%+.1f%%", 100*d.Change)
	if loss <= pct {
		return true, fmt.Sprintf("%s, within %g%% of A", change, pct)
	}
	switch {
	case d.P < 0:
		return true, fmt.Sprintf("%s, worse by more than %g%% but untestable: single runs have no spread to judge it against (repeat each side %d times)", change, pct, results.MinRuns())
	case !d.Testable():
		return true, fmt.Sprintf("%s, worse by more than %g%% but untestable (n=%d/%d): the test needs %d runs a side to reach p < %.2f", change, pct, d.Base.N, d.Other.N, results.MinRuns(), results.Alpha)
	case !d.Significant():
		return true, fmt.Sprintf("%s, worse by more than %g%% but within the run-to-run spread (p=%.2f)", change, pct, d.P)
	}
	return false, fmt.Sprintf("%s, worse by more than %g%% and significant (p=%.3f)", change, pct, d.P)
}

// gateValue is a side's mean, with its spread and count when it has repeats.
func gateValue(s results.Stat) string {
	if s.N == 0 {
		return "-"
	}
	t := strconv.FormatFloat(s.Mean, 'f', 1, 64)
	if s.N > 1 && s.Mean != 0 {
		t += fmt.Sprintf(" ±%.1f%% (n=%d)", 100*s.SD/s.Mean, s.N)
	}
	return t
}

// The regression gate's two ways to judge a loss (--gate-by).
const (
	GateByTest     = "test"
	GateByInterval = "interval"
)

// gateByInterval gates B's headline against A's by the 95% interval of their difference: it fails
// when the whole interval lies beyond a loss of pct. Groups of repeated runs give Welch's interval
// over the runs (results.Differ); two single runs, the interval from their own windows
// (result.intervals), whose relative half-widths add in quadrature for the ratio of two
// independent means (the delta method) — within-run only and approximate, which the line says.
func gateByInterval(w io.Writer, base, other []results.Loaded, pct float64) error {
	fmt.Fprintf(w, "\nregression gate: the headline fails when the 95%% interval of B's change from A lies wholly below -%g%%\n", pct)
	name, va, vb := headlineValues(base, other)
	st := results.Compare(va, vb)
	var lo, hi float64
	var basis string
	if d, ok := results.Differ(va, vb); ok {
		lo, hi, basis = d.Lo, d.Hi, "Welch's t over the runs"
	} else if len(va) == 1 && len(vb) == 1 && base[0].Run.Result.Interval(name) != nil && other[0].Run.Result.Interval(name) != nil && va[0] != 0 {
		ra, rb := base[0].Run.Result.Interval(name).Rel, other[0].Run.Result.Interval(name).Rel
		c := vb[0]/va[0] - 1
		h := (1 + c) * math.Sqrt(ra*ra+rb*rb)
		lo, hi, basis = c-h, c+h, "the two runs' own windows only, approximate: it does not include the spread between runs"
	} else {
		fmt.Fprintf(w, "PASS  %s: A %s → B %s: no interval of the difference: each side needs two runs or more, or both one run with an interval\n", name, gateValue(st.Base), gateValue(st.Other))
		return nil
	}
	span := fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%] (95%%, %s)", 100*st.Change, 100*lo, 100*hi, basis)
	if hi < -pct/100 {
		fmt.Fprintf(w, "FAIL  %s: A %s → B %s: %s, wholly worse than -%g%%\n", name, gateValue(st.Base), gateValue(st.Other), span, pct)
		return &Regression{Failed: 1, Gated: 1, PCT: pct}
	}
	fmt.Fprintf(w, "PASS  %s: A %s → B %s: %s, not wholly worse than -%g%%\n", name, gateValue(st.Base), gateValue(st.Other), span, pct)
	return nil
}

// headlineValues are the headline figure's name and its values in each run of the two groups,
// named and read as A's first run has it.
func headlineValues(base, other []results.Loaded) (name string, va, vb []float64) {
	docs := func(g []results.Loaded) []*results.Document {
		var out []*results.Document
		for _, l := range g {
			out = append(out, l.Run)
		}
		return out
	}
	a, b := docs(base), docs(other)
	name = "headline"
	if n, _, ok := a[0].Headline(); ok {
		name = n
	}
	f := results.RunFigures(name, a[0].MainTxn, a[0].TxnOrder)[0]
	return name, f.Values(a), f.Values(b)
}
