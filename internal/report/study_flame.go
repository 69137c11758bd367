package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cairn-bench/cairn/internal/diagnosis"
	"github.com/cairn-bench/cairn/internal/results"
)

// DiffError is a choice of what a study's differential flame graph compares that the study does
// not have.
type DiffError struct{ Msg string }

func (e *DiffError) Error() string { return e.Msg }

// BadInput marks the error as the user's to fix.
func (e *DiffError) BadInput() {}

// segmentProfile pools the on-CPU samples of live segment index over runs; nil when none has
// them. Its self shares are diagnosis.StackShares', as results compare reads them.
func segmentProfile(label string, index int, runs []*results.Document) *cpuProfile {
	var sts []*results.Stacks
	for _, d := range runs {
		sts = append(sts, results.SegmentStacks(d, index))
	}
	self, ok := diagnosis.StackShares(sts)
	if !ok {
		return nil
	}
	p := &cpuProfile{label: label, folded: map[string]int64{}, self: self}
	for _, s := range sts {
		if s == nil || s.Samples == 0 {
			continue
		}
		p.runs++
		p.samples += s.Samples
		for _, f := range s.Folded {
			p.folded[f.Stack] += f.Count
		}
	}
	return p
}

// studySegments are a case's live segments as its runs have them: index and label, from the run
// with the most.
func studySegments(st *results.Study, c *results.StudyCase) []results.Segment {
	var out []results.Segment
	for _, d := range allRuns(c.Profile) {
		if g := st.RunSegments(d); len(g) > len(out) {
			out = g
		}
	}
	return out
}

// CheckDiff checks a choice of what a study's differential flame graph compares: two live
// segments by number ("1", "4") in a study with live changes, else two cases by letter ("A",
// "C").
func CheckDiff(st *results.Study, diff []string) error {
	_, _, err := diffPair(st, diff)
	return err
}

// diffPair resolves the choice to two segment indexes (live studies) or two case indexes; the
// default is the first and the last segment, or the first two cases.
func diffPair(st *results.Study, diff []string) (int, int, error) {
	live := len(st.Schedule) > 0
	n := len(st.Cases)
	if live {
		n = 0
		for _, c := range st.Cases {
			n = max(n, len(studySegments(st, c)))
		}
	}
	return pickPair(live, n, "study's", diff)
}

// CheckRunDiff checks a choice of two live segments of a run ("1", "4") for its differential
// flame graph.
func CheckRunDiff(d *results.Document, diff []string) error {
	_, _, err := pickPair(true, len(d.Segments), "run's", diff)
	return err
}

// pickPair resolves a choice among n segments (live) or n cases; the default is the first and the
// last segment, or the first two cases.
func pickPair(live bool, n int, whose string, diff []string) (int, int, error) {
	what := "cases: give two case letters, A to " + string(rune('A'+max(0, n-1)))
	if live {
		what = fmt.Sprintf("segments: give two segment numbers, 1 to %d", n)
	}
	if len(diff) == 0 {
		if live {
			return 1, n, nil
		}
		return 0, 1, nil
	}
	if len(diff) != 2 || diff[0] == diff[1] {
		return 0, 0, &DiffError{Msg: fmt.Sprintf("--diff %s: name two different %s", strings.Join(diff, ","), what)}
	}
	var out [2]int
	for i, x := range diff {
		x = strings.TrimSpace(x)
		var v int
		var err error
		if live {
			v, err = strconv.Atoi(x)
			if err == nil && (v < 1 || v > n) {
				err = fmt.Errorf("out of range")
			}
		} else {
			if len(x) != 1 || strings.ToUpper(x)[0] < 'A' || int(strings.ToUpper(x)[0]-'A') >= n {
				err = fmt.Errorf("no such case")
			}
			if err == nil {
				v = int(strings.ToUpper(x)[0] - 'A')
			}
		}
		if err != nil {
			return 0, 0, &DiffError{Msg: fmt.Sprintf("--diff %s: %q is not one of the %s %s", strings.Join(diff, ","), x, whose, what)}
		}
		out[i] = v
	}
	return out[0], out[1], nil
}

// studyFlames are a study's on-CPU flame graphs: for live changes, each case's flame graph per
// segment (its runs pooled over every VU count, the settled part of each segment) and the
// differential graph of two chosen segments; then, for two cases or more, the differential graph
// of two cases (each case's runs pooled), chosen where the study has no live changes (A and B
// otherwise). An invalid choice draws the default pair.
func studyFlames(st *results.Study, diff []string) []Chart {
	a, b, err := diffPair(st, diff)
	if err != nil {
		a, b, _ = diffPair(st, nil)
	}
	var out []Chart
	if len(st.Schedule) > 0 {
		for ci, c := range st.Cases {
			runs := allRuns(c.Profile)
			ps := map[int]*cpuProfile{}
			for _, g := range studySegments(st, c) {
				label := fmt.Sprintf("segment %d, %s", g.Index, g.Label())
				p := segmentProfile(label, g.Index, runs)
				ps[g.Index] = p
				if ch := flameChart(p, fmt.Sprintf("study-seg-flame-%d-%d", ci+1, g.Index), flameTitle(p, c.Label+" · "+label+" (settled part, every VU count)")); ch != nil {
					out = append(out, *ch)
				}
			}
			if pa, pb := ps[a], ps[b]; a != b && pa != nil && pb != nil {
				if ch := flameDiffChart(pa, pb, fmt.Sprintf("study-seg-flame-diff-%d", ci+1),
					"Differential flame graph · "+c.Label+" · "+pb.label+" against "+pa.label+" (each segment's runs pooled)"); ch != nil {
					out = append(out, *ch)
				}
			}
		}
		a, b = 0, 1
	}
	if len(studyCases(st)) < 2 || a >= len(st.Cases) || b >= len(st.Cases) {
		return out
	}
	ca, cb := st.Cases[a], st.Cases[b]
	pa := profileOf(ca.Label, allRuns(ca.Profile)...)
	pb := profileOf(cb.Label, allRuns(cb.Profile)...)
	if c := flameDiffChart(pa, pb, "study-flame-diff", "Differential flame graph · "+cb.Label+" against "+ca.Label+" (each case's runs pooled)"); c != nil {
		out = append(out, *c)
	}
	return out
}

// runSegmentFlames are a run's flame graphs per live segment (the settled part of each) and the
// differential graph of two chosen segments (default the first and the last); none for a run
// without segment profiles.
func runSegmentFlames(d *results.Document, label string, i int, diff []string) []Chart {
	a, b, err := pickPair(true, len(d.Segments), "run's", diff)
	if err != nil {
		a, b, _ = pickPair(true, len(d.Segments), "run's", nil)
	}
	var out []Chart
	ps := map[int]*cpuProfile{}
	for _, g := range d.Segments {
		sl := fmt.Sprintf("segment %d, %s", g.Index, g.Label())
		p := segmentProfile(sl, g.Index, []*results.Document{d})
		ps[g.Index] = p
		if ch := flameChart(p, fmt.Sprintf("run-seg-flame-%d-%d", i, g.Index), flameTitle(p, label+" · "+sl+" (settled part)")); ch != nil {
			out = append(out, *ch)
		}
	}
	if pa, pb := ps[a], ps[b]; a != b && pa != nil && pb != nil {
		if ch := flameDiffChart(pa, pb, fmt.Sprintf("run-seg-flame-diff-%d", i), "Differential flame graph · "+label+" · "+pb.label+" against "+pa.label); ch != nil {
			out = append(out, *ch)
		}
	}
	return out
}
