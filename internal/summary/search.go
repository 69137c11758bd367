package summary

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// Search writes a capacity search's curve, a line per rate step in the order they ran, and its
// answer with its interval (docs/search.md).
func Search(w io.Writer, p *results.Profile) {
	sr := p.Search
	fmt.Fprintf(w, "\n%s capacity search on %s %s: highest rate with %s %s ≤ %s ms", Title(p.Workload), p.Target.Name, p.Target.Version,
		sr.Txn, sr.Percentile, textfmt.Ms(sr.TargetMs))
	if p.Interrupted {
		fmt.Fprint(w, " · INTERRUPTED: the steps below are all that ran")
	}
	fmt.Fprintln(w)
	if sr.ProbeTPS > 0 {
		fmt.Fprintf(w, "closed-loop probe: %s/s; first rate half of it\n", Thousands(sr.ProbeTPS))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "step\trate asked/s\tachieved/s\t%s ms\tsteady\theld\t\n", sr.Percentile)
	for i, pt := range sr.Points {
		steady, held := "no", "yes"
		if pt.Steady {
			steady = "yes"
		}
		if !pt.Held {
			held = "no: " + pt.Why
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t\n", i+1, Thousands(pt.Rate), Thousands(pt.Achieved), textfmt.Ms(pt.LatencyMs), steady, held)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, r := range p.Reasons() {
		fmt.Fprintf(w, "%s\n", r)
	}
	switch {
	case !sr.Found:
		fmt.Fprintf(w, "capacity: not found: no rate tried held %s ≤ %s ms\n", sr.Percentile, textfmt.Ms(sr.TargetMs))
	case sr.Hi == 0:
		fmt.Fprintf(w, "capacity: at least %s/s (every rate tried held; the highest, %s/s, achieved %s/s ±%s); raise --max-steps or --start-rate to find where it ends\n",
			Thousands(sr.Rate), Thousands(sr.Rate), Thousands(sr.Achieved), Thousands(sr.AchievedHalf))
	default:
		fmt.Fprintf(w, "capacity: %s/s, interval [%s, %s) /s: %s/s held, %s/s did not (achieved %s/s ±%s at %s/s)\n",
			Thousands(sr.Rate), Thousands(sr.Lo), Thousands(sr.Hi), Thousands(sr.Lo), Thousands(sr.Hi),
			Thousands(sr.Achieved), Thousands(sr.AchievedHalf), Thousands(sr.Rate))
	}
}
