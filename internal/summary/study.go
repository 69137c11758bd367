package summary

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// Study prints a study per case and VU count: the headline and the main transaction's p95 with
// their spread over the repeats, each against the first case's at the same VU count with a
// two-sided Mann-Whitney U test, and the live changes as they were made.
func Study(w io.Writer, s *results.Study) {
	name := s.Headline // set once a run measured it: the workload's own
	fmt.Fprintf(w, "\nstudy %s: %s on %s %s, %s, order %s", s.Name, Title(s.Workload), s.Target.Name, s.Target.Version,
		textfmt.Plural(s.Repeat, "run")+" per step", s.Order)
	switch {
	case !s.Ended():
		fmt.Fprint(w, " · NOT ENDED: running, or killed before its end; the runs below are all that were stored")
	case s.Interrupted:
		fmt.Fprint(w, " · INTERRUPTED: the runs below are all that ran")
	}
	fmt.Fprintln(w)
	if len(s.Original) > 0 {
		var o []string
		for _, x := range s.Original {
			o = append(o, x.Name+"="+x.Value)
		}
		fmt.Fprintf(w, "settings as found: %s (%s)\n", strings.Join(o, ", "), s.RestoreState())
	}
	if len(s.Cases) == 0 || !s.Measured() {
		fmt.Fprintln(w, "no run was measured")
		return
	}
	base := s.Cases[0]
	fmt.Fprintf(w, "A: %s (the baseline)\n", base.Label)
	for i, c := range s.Cases[1:] {
		fmt.Fprintf(w, "%c: %s\n", 'B'+i, c.Label)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "case\tVUs\truns\t%s\tvs A\t%s p95\tvs A\terrors\t\n", name, s.MainTxn)
	anyCut := false
	for i, c := range s.Cases {
		for _, st := range c.Profile.Steps {
			sum := st.Summary
			vsH, vsP := "", ""
			if i > 0 {
				if b := base.Profile.StepAt(st.VU); b != nil {
					vsH = deltaText(results.Compare(b.Summary.Headline.Values, sum.Headline.Values))
					vsP = deltaText(results.Compare(b.Summary.P95ms.Values, sum.P95ms.Values))
				}
			}
			runs := strconv.Itoa(sum.Headline.N)
			if n := cutRuns(st); n > 0 {
				runs += fmt.Sprintf(" (%d cut short)", n)
				anyCut = true
			}
			if b := base.Profile.StepAt(st.VU); i > 0 && b != nil && (cutRuns(b) > 0 || cutRuns(st) > 0) {
				vsH, vsP = vsH+" cut", vsP+" cut"
			}
			fmt.Fprintf(tw, "%c\t%d\t%s\t%s\t%s\t%s\t%s\t%d\t\n", 'A'+i, st.VU, runs, statText(sum.Headline), vsH, statMs(sum.P95ms), vsP, sum.Errors)
		}
	}
	tw.Flush()
	spreadNote(w, s.Repeat, fmt.Sprintf("give the study repeat: %d or more", results.MinRuns()))
	if anyCut {
		cutNote(w)
	}
	fanoutStudy(w, s)
	liveSegments(w, s)
	for _, d := range s.Runs() {
		if len(d.Changes) == 0 {
			continue
		}
		var ch []string
		for _, c := range d.Changes {
			ch = append(ch, fmt.Sprintf("%s=%s at %.2fs (planned %gs)", c.Name, c.Value, c.AtSec, c.Planned))
		}
		fmt.Fprintf(w, "live changes in result %s: %s\n", d.ID, strings.Join(ch, ", "))
	}
	studyEvidence(w, s)
}

// cutRuns counts a step's runs whose window was cut short of its plan.
func cutRuns(st *results.Step) int {
	n := 0
	for _, d := range st.Runs {
		if d.Cut() {
			n++
		}
	}
	return n
}

// liveSegments prints each case's VU counts × the live values: one row per segment, its figures
// over the step's runs (docs/studies.md#segments).
func liveSegments(w io.Writer, s *results.Study) {
	rows := s.SegmentRows()
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nper live segment (%gs after each change left out to settle; p95 approximate, from the per-second series):\n", results.SettleSeconds)
	waits, disk, rec := false, false, false
	for _, r := range rows {
		waits = waits || len(r.Waits) > 0
		disk = disk || r.Device != ""
		rec = rec || r.Recovery.N > 0 || r.NotRecovered > 0
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "case\tVUs\tseg\tlive values\tTPS\tQPS\tp95\t")
	if rec {
		fmt.Fprint(tw, "recovered after\t")
	}
	if disk {
		fmt.Fprint(tw, "disk w/s\t")
	}
	if waits {
		fmt.Fprint(tw, "top waits\t")
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		fmt.Fprintf(tw, "%c\t%d\t%d\t%s\t%s\t%s\t%s\t", 'A'+r.Case, r.VU, r.Index, r.Label, statText(r.TPS), statText(r.QPS), statMs(r.P95ms))
		if rec {
			fmt.Fprintf(tw, "%s\t", recoveryText(r))
		}
		if disk {
			if r.Device != "" {
				fmt.Fprintf(tw, "%s %s\t", r.Device, statText(r.Disk))
			} else {
				fmt.Fprint(tw, "-\t")
			}
		}
		if waits {
			fmt.Fprintf(tw, "%s\t", results.TopWaits(r.Waits, 2))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// recoveryText is a segment row's time to recover: the mean over the runs that recovered, with
// its spread, and how many did not by the segment's end; "-" for the first segment.
func recoveryText(r results.SegmentRow) string {
	var parts []string
	if r.Recovery.N > 0 {
		t := fmt.Sprintf("%.1f s", r.Recovery.Mean)
		if r.Recovery.N > 1 {
			t += fmt.Sprintf(" ±%.1f", r.Recovery.SD)
		}
		parts = append(parts, t)
	}
	if r.NotRecovered > 0 {
		parts = append(parts, fmt.Sprintf("%d not by its end", r.NotRecovered))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}
