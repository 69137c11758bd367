package results

import (
	"fmt"
	"sort"
	"strings"
)

// DesignError is studies compared with each other that are not of one design: what differs.
type DesignError struct{ Msg string }

func (e *DesignError) Error() string { return e.Msg }

// BadInput marks the error as the user's to fix.
func (e *DesignError) BadInput() {}

// Design is what makes studies comparable case by case: the workload, the factors with their
// levels in order (so the cases are the same, in the same order) and the live changes' settings
// and values (so the segments are). VU counts, repeats, order and the server may differ: steps
// are matched by VU count, and the server's version is then a factor of the comparison.
func (s *Study) Design() string {
	var f []string
	for _, x := range s.Factors {
		f = append(f, fmt.Sprintf("%s (%s)", x.Name, strings.Join(x.Levels, ", ")))
	}
	d := s.Workload + ", factors " + strings.Join(f, ", ")
	if len(f) == 0 {
		d = s.Workload + ", no factor"
	}
	if len(s.Schedule) > 0 {
		var ch []string
		for _, x := range s.Schedule {
			for _, v := range x.Set {
				ch = append(ch, v.Name+"="+v.Value)
			}
		}
		d += ", live " + strings.Join(ch, " → ")
	}
	return d
}

// SameDesign checks that studies are of one design (Design), and says what differs when not.
func SameDesign(ls []Loaded) error {
	a := ls[0]
	for _, b := range ls[1:] {
		if da, db := a.Study.Design(), b.Study.Design(); da != db {
			return &DesignError{Msg: fmt.Sprintf("studies %s and %s are of different designs (%s; %s): compare studies of one workload, the same factors and levels and the same live changes",
				a.ID, b.ID, da, db)}
		}
	}
	return nil
}

// StudyRow is one case at one VU count (and, for studies with live changes, one segment) in each
// of several studies of one design, side by side: a figure's Stat per study, N 0 where a study
// did not run it.
type StudyRow struct {
	Case    int
	VU      int
	Segment int    // 0: the whole run; from 1: the live segment
	Label   string // the segment's live values
	// Headline and P95ms are the headline (TPS for a segment) and the main transaction's p95.
	Headline, P95ms []Stat
	// Runs are each study's runs of the case and VU count.
	Runs [][]*Document
}

// CompareStudies sets studies of one design side by side, case by case at each VU count any
// of them ran, in the first study's case order and rising VU counts; segments gives the live
// segments' rows instead of the whole runs'.
func CompareStudies(ss []*Study, segments bool) []StudyRow {
	var out []StudyRow
	for ci := range ss[0].Cases {
		for _, vu := range studyVUs(ss, ci) {
			if !segments {
				r := StudyRow{Case: ci, VU: vu}
				for _, s := range ss {
					var h, p Stat
					var runs []*Document
					if st := s.Cases[ci].Profile.StepAt(vu); st != nil {
						h, p, runs = st.Summary.Headline, st.Summary.P95ms, st.Runs
					}
					r.Headline, r.P95ms, r.Runs = append(r.Headline, h), append(r.P95ms, p), append(r.Runs, runs)
				}
				out = append(out, r)
				continue
			}
			var rows []StudyRow
			for si, s := range ss {
				for _, g := range s.SegmentRows() {
					if g.Case != ci || g.VU != vu {
						continue
					}
					for len(rows) < g.Index {
						rows = append(rows, StudyRow{Case: ci, VU: vu, Segment: len(rows) + 1,
							Headline: make([]Stat, len(ss)), P95ms: make([]Stat, len(ss)), Runs: make([][]*Document, len(ss))})
					}
					r := &rows[g.Index-1]
					if r.Label == "" {
						r.Label = g.Label
					}
					r.Headline[si], r.P95ms[si] = g.TPS, g.P95ms
					if st := s.Cases[ci].Profile.StepAt(vu); st != nil {
						r.Runs[si] = st.Runs
					}
				}
			}
			out = append(out, rows...)
		}
	}
	return out
}

// studyVUs are the VU counts any of the studies ran case ci at, rising.
func studyVUs(ss []*Study, ci int) []int {
	seen := map[int]bool{}
	var vus []int
	for _, s := range ss {
		for _, st := range s.Cases[ci].Profile.Steps {
			if !seen[st.VU] {
				seen[st.VU] = true
				vus = append(vus, st.VU)
			}
		}
	}
	sort.Ints(vus)
	return vus
}
