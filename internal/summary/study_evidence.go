package summary

import (
	"fmt"
	"io"
	"strings"

	"github.com/cairn-bench/cairn/internal/diagnosis"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// evidenceShown is how many synch waits a line names, and how many of each direction a shift.
const evidenceShown = 3

// evidence is what explains one case at one VU count, or one live segment of it: its synch
// waits' shares of the synch waits alone and its functions' self shares of the on-CPU samples
// (percent), each averaged over the runs that measured them.
type evidence struct {
	synch, funcs     map[string]float64
	synchOK, funcsOK bool
	sampled          bool
}

func (e evidence) any() bool { return e.synchOK || e.funcsOK }

// caseEvidence is a step's runs' evidence: each run's window.
func caseEvidence(runs []*results.Document) evidence {
	var e evidence
	var lists [][]results.WaitEvent
	for _, d := range runs {
		if d != nil && d.Waits != nil {
			// Waits read with no synch event among them: measured, none (a stored document
			// leaves its empty list out).
			lists = append(lists, append([]results.WaitEvent{}, d.Waits.SynchAlone()...))
			e.sampled = d.Waits.Sampled
		}
	}
	e.synch, e.synchOK = results.MeanSynch(lists)
	e.funcs, e.funcsOK = diagnosis.SelfShares(runs)
	return e
}

// segmentEvidence is the runs' evidence in their live segment index.
func segmentEvidence(s *results.Study, runs []*results.Document, index int) evidence {
	var e evidence
	var lists [][]results.WaitEvent
	var sts []*results.Stacks
	for _, d := range runs {
		if d == nil {
			continue
		}
		if d.Waits != nil {
			e.sampled = d.Waits.Sampled
		}
		for _, g := range s.RunSegments(d) {
			if g.Index != index {
				continue
			}
			if ws := results.WaitsOfSegment(d, index); ws != nil {
				lists = append(lists, ws.Synch)
			} else if g.Synch != nil {
				lists = append(lists, g.Synch)
			}
		}
		sts = append(sts, results.SegmentStacks(d, index))
	}
	e.synch, e.synchOK = results.MeanSynch(lists)
	e.funcs, e.funcsOK = diagnosis.StackShares(sts)
	return e
}

// text says what the evidence names: the top synch waits and where the on-CPU samples went;
// how to name what perf could not is noted in hints, once per list.
func (e evidence) text(hints map[string]bool) string {
	var parts []string
	switch {
	case !e.synchOK:
		parts = append(parts, "synch waits not measured")
	case len(e.synch) == 0:
		parts = append(parts, "no synch waits")
	default:
		var top []string
		for _, n := range topNames(e.synch, evidenceShown) {
			top = append(top, fmt.Sprintf("%s %s%%", n, share1(e.synch[n])))
		}
		parts = append(parts, "synch "+strings.Join(top, ", "))
	}
	if e.funcsOK {
		a := diagnosis.Attribute(e.funcs)
		parts = append(parts, "on CPU: "+a.Brief())
		if h := a.Hint(); h != "" {
			hints[h] = true
		}
	} else {
		parts = append(parts, "no on-CPU profile")
	}
	return strings.Join(parts, "; ")
}

// shifts says what gained and lost most from base to e: synch waits in points of the synch
// waits alone, functions in points of the on-CPU samples; "" when nothing moved or neither side
// measured it.
func (e evidence) shifts(base evidence) string {
	var parts []string
	say := func(what string, a, b map[string]float64) {
		gained, lost := diagnosis.FunctionShifts(a, b, evidenceShown)
		var g, l []string
		for _, f := range gained {
			g = append(g, shiftText(f))
		}
		for _, f := range lost {
			l = append(l, shiftText(f))
		}
		if len(g) > 0 {
			parts = append(parts, what+" gained "+strings.Join(g, ", "))
		}
		if len(l) > 0 {
			parts = append(parts, what+" lost "+strings.Join(l, ", "))
		}
	}
	if e.synchOK && base.synchOK {
		say("synch", base.synch, e.synch)
	}
	if e.funcsOK && base.funcsOK {
		say("functions", base.funcs, e.funcs)
	}
	return strings.Join(parts, "; ")
}

func shiftText(f diagnosis.FunctionShift) string {
	return fmt.Sprintf("%s %+.1f pp (%s→%s%%)", f.Name, f.Change(), share1(f.Base), share1(f.Other))
}

// share1 is a percentage with one decimal, none when whole.
func share1(v float64) string {
	return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0")
}

// topNames are the n names with the largest values (0.1 or more), ties by name.
func topNames(m map[string]float64, n int) []string {
	top, _ := diagnosis.FunctionShifts(nil, m, n)
	out := make([]string, len(top))
	for i, f := range top {
		out[i] = f.Name
	}
	return out
}

// studyEvidence prints what explains the study's figures (docs/studies.md#evidence): per case and
// VU count the top synch waits and where the on-CPU samples went, each case against the first
// at the same VU count; for live changes the same per segment, each against the first
// segment, with each segment's diagnosis line.
func studyEvidence(w io.Writer, s *results.Study) {
	type row struct {
		c   int
		st  *results.Step
		ev  evidence
		ref *results.Step
	}
	var rows []row
	anyEv := false
	for ci, c := range s.Cases {
		for _, st := range c.Profile.Steps {
			r := row{c: ci, st: st, ev: caseEvidence(st.Runs)}
			if ci > 0 {
				r.ref = s.Cases[0].Profile.StepAt(st.VU)
			}
			anyEv = anyEv || r.ev.any()
			rows = append(rows, r)
		}
	}
	if !anyEv {
		return
	}
	fmt.Fprintln(w, "\nevidence per case and VU count (synch: each wait's share of the synch waits alone; on CPU: self share of the on-CPU samples; a step's runs averaged):")
	hints := map[string]bool{}
	for _, r := range rows {
		fmt.Fprintf(w, "  case %c at %s: %s\n", 'A'+r.c, textfmt.Plural(r.st.VU, "VU"), r.ev.text(hints))
		if r.ref != nil {
			if sh := r.ev.shifts(caseEvidence(r.ref.Runs)); sh != "" {
				fmt.Fprintf(w, "    against A: %s\n", sh)
			}
		}
	}
	segmentsEvidence(w, s, hints)
	for h := range hints {
		fmt.Fprintln(w, "unnamed samples: "+h)
	}
}

// segmentsEvidence prints each case's live segments at each VU count, each against the first.
func segmentsEvidence(w io.Writer, s *results.Study, hints map[string]bool) {
	if len(s.Schedule) == 0 {
		return
	}
	for ci, c := range s.Cases {
		for _, st := range c.Profile.Steps {
			var segs []results.Segment
			var first *results.Document
			for _, d := range st.Runs {
				if g := s.RunSegments(d); len(g) > len(segs) {
					segs, first = g, d
				}
			}
			if len(segs) == 0 {
				continue
			}
			base := segmentEvidence(s, st.Runs, 1)
			fmt.Fprintf(w, "\nevidence per live segment, case %c at %s (each against segment 1; the settled part of each, %gs after its change left out):\n",
				'A'+ci, textfmt.Plural(st.VU, "VU"), results.SettleSeconds)
			for _, g := range segs {
				ev := segmentEvidence(s, st.Runs, g.Index)
				fmt.Fprintf(w, "  seg %d %s: %s\n", g.Index, g.Label(), ev.text(hints))
				if g.Index > 1 {
					if sh := ev.shifts(base); sh != "" {
						fmt.Fprintf(w, "    against seg 1: %s\n", sh)
					}
				}
			}
			who := "the step's first run"
			if first.ID != "" {
				who = "result " + first.ID
			}
			fmt.Fprintf(w, "  per segment, %s:\n", who)
			for i := range segs {
				fmt.Fprintln(w, "    "+diagnosis.Segment(first, &segs[i]))
			}
		}
	}
}
