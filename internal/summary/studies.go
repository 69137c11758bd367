package summary

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// Studies prints studies of one design side by side (results.SameDesign): each case at each VU
// count, and each live segment, in every study, with its change against the first study's over
// the repeats. When the studies ran on different server versions the columns are labelled by
// version: the version is then the factor the comparison varies.
func Studies(w io.Writer, ls []results.Loaded) {
	ss := make([]*results.Study, len(ls))
	for i, l := range ls {
		ss[i] = l.Study
	}
	cols := studyColumns(ss)
	fmt.Fprintf(w, "studies of one design: %s\n", ss[0].Design())
	for i, s := range ss {
		fmt.Fprintf(w, "%c: study %s %s on %s %s, %s, started %s", 'A'+i, ls[i].ID, s.Name, s.Target.Name, s.Target.Version,
			textfmt.Plural(s.Repeat, "run")+" per step", s.StartedAt.Format("2006-01-02 15:04 MST"))
		if !s.Ended() || s.Interrupted {
			fmt.Fprintf(w, " · %s", s.State())
		}
		fmt.Fprintln(w)
	}
	if cols[0] != "A" {
		fmt.Fprintln(w, "the server versions differ: the version is a factor, and the columns are labelled by it")
	}
	name := ""
	for _, s := range ss {
		if name = s.Headline; name != "" {
			break
		}
	}
	fmt.Fprintln(w)
	rows := results.CompareStudies(ss, false)
	studyTable(w, ss, cols, rows, name, false)
	fanoutStudies(w, cols, ss, rows)
	if segs := results.CompareStudies(ss, true); len(segs) > 0 {
		fmt.Fprintf(w, "\nper live segment (%gs after each change left out to settle; p95 approximate, from the per-second series):\n", results.SettleSeconds)
		studyTable(w, ss, cols, segs, "TPS", true)
	}
	repeat := ss[0].Repeat
	for _, s := range ss {
		repeat = min(repeat, s.Repeat)
	}
	spreadNote(w, repeat, fmt.Sprintf("give the studies repeat: %d or more", results.MinRuns()))
	fmt.Fprintln(w)
	for _, r := range rows {
		for i := 1; i < len(ss); i++ {
			what := fmt.Sprintf("%s against %s, %s at %s", cols[i], cols[0], ss[0].Cases[r.Case].Label, textfmt.Plural(r.VU, "VU"))
			FunctionShifts(w, what, cols[0], cols[i], r.Runs[0], r.Runs[i])
		}
	}
}

// studyColumns label the studies: by letter, or by server version where the versions differ
// (with the letter too where two studies share one).
func studyColumns(ss []*results.Study) []string {
	count := map[string]int{}
	for _, s := range ss {
		count[s.Target.Name+" "+s.Target.Version]++
	}
	cols := make([]string, len(ss))
	for i, s := range ss {
		v := s.Target.Name + " " + s.Target.Version
		switch {
		case len(count) == 1:
			cols[i] = string(rune('A' + i))
		case count[v] > 1:
			cols[i] = fmt.Sprintf("%c %s", 'A'+i, v)
		default:
			cols[i] = v
		}
	}
	return cols
}

// studyTable prints rows of studies side by side: the headline and the main transaction's p95 in
// each, each against the first study's.
func studyTable(w io.Writer, ss []*results.Study, cols []string, rows []results.StudyRow, name string, segments bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "case\tVUs\t")
	if segments {
		fmt.Fprint(tw, "seg\tlive values\t")
	}
	for _, fig := range []string{name, ss[0].MainTxn + " p95"} {
		for i, c := range cols {
			fmt.Fprintf(tw, "%s %s\t", fig, c)
			if i > 0 {
				fmt.Fprintf(tw, "vs %s\t", cols[0])
			}
		}
	}
	fmt.Fprintln(tw)
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%d\t", ss[0].Cases[r.Case].Label, r.VU)
		if segments {
			fmt.Fprintf(tw, "%d\t%s\t", r.Segment, r.Label)
		}
		for f, stats := range [][]results.Stat{r.Headline, r.P95ms} {
			for i, s := range stats {
				if f == 0 {
					fmt.Fprintf(tw, "%s\t", statText(s))
				} else {
					fmt.Fprintf(tw, "%s\t", statMs(s))
				}
				if i > 0 {
					fmt.Fprintf(tw, "%s\t", deltaText(results.Compare(stats[0].Values, s.Values)))
				}
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
