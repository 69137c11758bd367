package summary

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// Search writes a capacity search's curve, a line per rate step in the order they ran, and its
// answer with its interval (docs/search.md).
func Search(w io.Writer, p *results.Profile) {
	sr := p.Search
	var held []string
	for _, t := range sr.Targets {
		held = append(held, fmt.Sprintf("%s ≤ %s ms", t.Name(), textfmt.Ms(t.TargetMs)))
	}
	fmt.Fprintf(w, "\n%s capacity search on %s %s: highest rate with %s", Title(p.Workload), p.Target.Name, p.Target.Version,
		strings.Join(held, " and "))
	if p.Interrupted {
		fmt.Fprint(w, " · INTERRUPTED: the steps below are all that ran")
	}
	fmt.Fprintln(w)
	if sr.ProbeTPS > 0 {
		fmt.Fprintf(w, "closed-loop probe: %s/s; first rate half of it\n", Thousands(sr.ProbeTPS))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "step\trate asked/s\tachieved/s\t")
	for _, t := range sr.Targets {
		fmt.Fprintf(tw, "%s ms\t", t.Name())
	}
	fmt.Fprint(tw, "steady\theld\t\n")
	for i, pt := range sr.Points {
		steady, held, again := "no", "yes", ""
		if pt.Steady {
			steady = "yes"
		}
		if !pt.Held {
			held = "no: " + pt.Why
		}
		if pt.Again {
			again = " again"
		}
		fmt.Fprintf(tw, "%d%s\t%s\t%s\t", i+1, again, Thousands(pt.Rate), Thousands(pt.Achieved))
		for j := range sr.Targets {
			if j < len(pt.LatencyMs) {
				fmt.Fprintf(tw, "%s\t", textfmt.Ms(pt.LatencyMs[j]))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", steady, held)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, r := range p.Reasons() {
		fmt.Fprintf(w, "%s\n", r)
	}
	switch {
	case !sr.Found:
		fmt.Fprintf(w, "capacity: not found: no rate tried held %s\n", strings.Join(held, " and "))
	case sr.Hi == 0:
		fmt.Fprintf(w, "capacity: at least %s/s (every rate tried held; the highest, %s/s, achieved %s/s ±%s); raise --max-steps or --start-rate to find where it ends\n",
			Thousands(sr.Rate), Thousands(sr.Rate), Thousands(sr.Achieved), Thousands(sr.AchievedHalf))
	default:
		bound := ""
		if sr.Bound != "" {
			bound = "; " + sr.Bound + " bound it"
		}
		fmt.Fprintf(w, "capacity: %s/s, interval [%s, %s) /s: %s/s held, %s/s did not%s (achieved %s/s ±%s at %s/s)\n",
			Thousands(sr.Rate), Thousands(sr.Lo), Thousands(sr.Hi), Thousands(sr.Lo), Thousands(sr.Hi), bound,
			Thousands(sr.Achieved), Thousands(sr.AchievedHalf), Thousands(sr.Rate))
	}
}
