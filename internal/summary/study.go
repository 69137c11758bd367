package summary

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cairn-bench/cairn/internal/results"
)

// Study prints a study per case and VU count: the headline and the main transaction's p95 with
// their spread over the repeats, each against the first case's at the same VU count with a
// two-sided Mann-Whitney U test, and the live changes as they were made.
func Study(w io.Writer, s *results.Study) {
	name := s.Headline
	if name == "" {
		name = "NOPM"
	}
	fmt.Fprintf(w, "\nstudy %s: %s on %s %s, %s, order %s", s.Name, Title(s.Workload), s.Target.Name, s.Target.Version,
		plural(s.Repeat, "run")+" per step", s.Order)
	if s.Interrupted {
		fmt.Fprint(w, " · INTERRUPTED: the runs below are all that ran")
	}
	fmt.Fprintln(w)
	if len(s.Original) > 0 {
		var o []string
		for _, x := range s.Original {
			o = append(o, x.Name+"="+x.Value)
		}
		state := "restored and read back"
		if !s.Restored {
			state = "NOT all restored: run 'cairn study restore --db URL'"
		}
		fmt.Fprintf(w, "settings as found: %s (%s)\n", strings.Join(o, ", "), state)
	}
	if len(s.Cases) == 0 {
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
			fmt.Fprintf(tw, "%c\t%d\t%d\t%s\t%s\t%s\t%s\t%d\t\n", 'A'+i, st.VU, sum.Headline.N, statText(sum.Headline), vsH, statMs(sum.P95ms), vsP, sum.Errors)
		}
	}
	tw.Flush()
	spreadNote(w, s.Repeat, "give the study repeat: 3 or more")
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
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
