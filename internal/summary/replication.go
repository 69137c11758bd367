package summary

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// Replication prints a run on a primary with replicas: each connection group's transactions and
// latency, each server's own TPM, and each replica's lag.
func Replication(w io.Writer, d *results.Document) {
	r := d.Replication
	if r == nil {
		return
	}
	fmt.Fprintf(w, "\nconnection groups (route %s):\n", r.Route)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "group\ttypes\tcount\tper min\terrors\tmean\tp95\tp99 ms\t")
	for _, g := range r.Groups {
		l := g.LatencyMs
		fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\t%d\t%s\t%s\t%s\t\n", g.Group, strings.Join(g.Types, ", "), g.Transactions, g.PerMinute, g.Errors,
			textfmt.Ms(l.Mean), textfmt.Ms(l.P95), textfmt.Ms(l.P99))
	}
	tw.Flush()
	for _, s := range r.Servers {
		fmt.Fprintf(w, "%s %s: ", s.Role, s.Address)
		if s.TPM != nil {
			fmt.Fprintf(w, "TPM %d (its own counter)", *s.TPM)
		} else {
			fmt.Fprint(w, "TPM not read")
		}
		if l := s.Lag; l != nil {
			if l.MaxS != nil {
				fmt.Fprintf(w, "; lag max %.3g s, mean %.3g s in the window (%s)", *l.MaxS, *l.MeanS, l.Source)
			} else {
				fmt.Fprintf(w, "; lag not read in the window (%s)", l.Source)
			}
		}
		fmt.Fprintln(w)
	}
}
