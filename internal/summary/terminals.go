package summary

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/textfmt"
)

// Terminals prints a run of terminals over pooled connections: the wait for a connection per
// type, and the terminals' measured menu, keying and think times where they keyed and thought.
func Terminals(w io.Writer, d *results.Document) {
	t := d.Terminals
	if t == nil {
		return
	}
	fmt.Fprintf(w, "\n%d terminals over %d pooled connections; waits for a connection, and the terminals' times as measured:\n", t.Terminals, t.Connections)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "transaction\twait mean ms\twait p95 ms\tmenu ms\tkeying s\tthink s\t")
	opt := func(v *float64) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprintf("%.3g", *v)
	}
	for _, n := range d.TxnOrder {
		x := t.Txns[n]
		if x == nil {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", n, textfmt.Ms(x.WaitMs.Mean), textfmt.Ms(x.WaitMs.P95), opt(x.MenuMs), opt(x.KeyingS), opt(x.ThinkS))
	}
	tw.Flush()
}

// ClientMemory prints the client's peak resident memory and its CPU as a share of one core over
// the window (bench/terminals.sh derives the per-terminal figures from runs of several sizes).
func ClientMemory(w io.Writer, d *results.Document) {
	c := d.Client
	if c.PeakRSSBytes <= 0 {
		return
	}
	fmt.Fprintf(w, "client memory: peak RSS %.1f MiB", float64(c.PeakRSSBytes)/(1<<20))
	if d.Window.ClientSeconds > 0 {
		fmt.Fprintf(w, "; client CPU %.2f%% of one core over the window", 100*c.CPUSeconds/d.Window.ClientSeconds)
	}
	fmt.Fprintln(w)
}
