package cli

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/run"
)

// progress shows rows loaded: a bar with rows/s and an ETA on a terminal, a line every 5 s otherwise.
type progress struct {
	w     io.Writer
	total int64
	label string
	stop  chan struct{}
	done  sync.WaitGroup
	once  sync.Once
	bar   *progressbar.ProgressBar
}

func newProgress(w io.Writer, total int64, label string) *progress {
	return &progress{w: w, total: total, label: label}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func (p *progress) start(rows *atomic.Int64) {
	p.stop = make(chan struct{})
	tty := isTerminal(p.w)
	if tty {
		p.bar = progressbar.NewOptions64(p.total, progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetDescription(p.label), progressbar.OptionShowCount(),
			progressbar.OptionShowIts(), progressbar.OptionSetItsString("rows"),
			progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionSetWidth(30), progressbar.OptionClearOnFinish())
		// The bar's clock starts at its first render: render now, so that its first rate is over a
		// real interval, not a few microseconds.
		_ = p.bar.RenderBlank()
	}
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t0 := time.Now()
		period := 200 * time.Millisecond
		if !tty {
			period = 5 * time.Second
		}
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
			n := rows.Load()
			if p.bar != nil {
				_ = p.bar.Set64(min(n, p.total))
				continue
			}
			el := time.Since(t0).Seconds()
			rate := float64(n) / el
			eta := "?"
			if rate > 0 && n < p.total {
				eta = (time.Duration(float64(p.total-n)/rate) * time.Second).Round(time.Second).String()
			}
			fmt.Fprintf(p.w, "%s: %d/%d rows (%.0f%%), %.0f rows/s, ETA %s\n", p.label, n, p.total, 100*float64(n)/float64(p.total), rate, eta)
		}
	}()
}

func (p *progress) finish() {
	p.once.Do(func() {
		if p.stop == nil {
			return
		}
		close(p.stop)
		p.done.Wait()
		if p.bar != nil {
			_ = p.bar.Finish()
		}
	})
}

var shortNames = map[string]string{"new_order": "NO", "payment": "PAY", "order_status": "OS", "delivery": "DL", "stock_level": "SL"}

func short(n string) string {
	if s, ok := shortNames[n]; ok {
		return s
	}
	return n
}

// printProgress prints one live line.
func printProgress(w io.Writer, p run.Progress, types []string) {
	var b strings.Builder
	el := p.Elapsed.Round(time.Second)
	switch p.Phase {
	case "rampup":
		fmt.Fprintf(&b, "[%6s] rampup  ", el)
	case "window":
		fmt.Fprintf(&b, "[%6s] window %-5s", el, p.InWindow.Round(time.Second))
	default:
		fmt.Fprintf(&b, "[%6s] end     ", el)
	}
	fmt.Fprintf(&b, " NOPM %8.0f  TPM %8.0f (%s)  p95 ms", p.HeadlinePM, p.TxnPM, p.Source)
	for i, n := range types {
		if i < len(p.P95) {
			fmt.Fprintf(&b, " %s %.1f", short(n), p.P95[i])
		}
	}
	fmt.Fprintf(&b, "  errors %d retries %d\n", p.Errors, p.Retries)
	io.WriteString(w, b.String())
}

func ms(v float64) string {
	switch {
	case v == 0:
		return "-"
	case v < 10:
		return fmt.Sprintf("%.3f", v)
	case v < 100:
		return fmt.Sprintf("%.2f", v)
	case v < 1000:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// printLimits prints the late and skipped counts of a run with --latency-limit.
func printLimits(w io.Writer, d *results.Document) {
	var late, skipped, count int64
	for _, t := range d.Txns {
		late, skipped, count = late+t.Late, skipped+t.Skipped, count+t.Count
	}
	if late == 0 && skipped == 0 {
		return
	}
	fmt.Fprintf(w, "over the latency limit: %d of %d transactions (%.3f%%)", late, count, 100*float64(late)/float64(max(count, 1)))
	if skipped > 0 {
		fmt.Fprintf(w, "; skipped, already late when due: %d (%.3f%% of those scheduled)", skipped, 100*float64(skipped)/float64(count+skipped))
	}
	fmt.Fprintln(w)
}

// printSummary prints the final report of a run.
func printSummary(w io.Writer, d *results.Document) {
	if d.Workload == "tpch" {
		printTPCHSummary(w, d)
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s run on %s %s · %s · mode %s · seed %d\n", workloadName(d.Workload), d.Target.Name, d.Target.Version, plural(d.VU, "VU"), d.Mode, d.Seed)
	if d.Window.Seconds > 0 {
		fmt.Fprintf(w, "measured window %.3f s (planned %.0f s) after %.0f s rampup\n", d.Window.Seconds, d.Window.PlannedSeconds, d.Window.RampupSeconds)
	}
	for _, n := range d.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "transaction\tcount\tper min\tmix %\trollbk\terrors\tretries\tmean\tp50\tp90\tp95\tp99\tp99.9\tmax ms\t")
	for _, n := range d.TxnOrder {
		t := d.Txns[n]
		l := t.LatencyMs
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.2f\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", n, t.Count, t.PerMinute, t.Percentage, t.Rollbacks, t.Errors, t.Retries,
			ms(l.Mean), ms(l.P50), ms(l.P90), ms(l.P95), ms(l.P99), ms(l.P999), ms(l.Max))
	}
	tw.Flush()
	printLimits(w, d)
	if len(d.StmtOrder) > 0 {
		fmt.Fprintln(w, "\nstatements in the window:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "statement\tclass\tcount\tper s\tmean\tp50\tp90\tp95\tp99\tp99.9\tmax ms\t")
		for _, n := range d.StmtOrder {
			st := d.Statements[n]
			if st.Count == 0 {
				continue
			}
			l := st.LatencyMs
			fmt.Fprintf(tw, "%s\t%s\t%d\t%.0f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", n, st.Class, st.Count, st.PerSecond,
				ms(l.Mean), ms(l.P50), ms(l.P90), ms(l.P95), ms(l.P99), ms(l.P999), ms(l.Max))
		}
		tw.Flush()
	}
	if len(d.TxnOrder) > 0 && d.Txns[d.TxnOrder[0]].ServiceMs != nil {
		fmt.Fprintln(w, "\nlatency above is from the intended start (open loop); service time from the actual start:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "transaction\tmean\tp50\tp90\tp95\tp99\tp99.9\tmax ms\t")
		for _, n := range d.TxnOrder {
			l := d.Txns[n].ServiceMs
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", n, ms(l.Mean), ms(l.P50), ms(l.P90), ms(l.P95), ms(l.P99), ms(l.P999), ms(l.Max))
		}
		tw.Flush()
	}
	fmt.Fprintln(w)
	c := d.Client
	if c.CPUusPerTxn > 0 {
		fmt.Fprintf(w, "client CPU: %.1f µs per transaction (%.2f s in the window)", c.CPUusPerTxn, c.CPUSeconds)
		if c.ShareOfOthers != nil {
			fmt.Fprintf(w, "; %.1f%% of the rest of this host's busy CPU (the server's, if it runs here)", 100**c.ShareOfOthers)
		}
		fmt.Fprintln(w)
	}
	if c.Reconnects > 0 {
		fmt.Fprintf(w, "reconnects: %d\n", c.Reconnects)
	}
	if len(d.Errors) > 0 {
		keys := make([]string, 0, len(d.Errors))
		for k := range d.Errors {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return d.Errors[keys[i]] > d.Errors[keys[j]] })
		fmt.Fprintln(w, "errors in the window:")
		for i, k := range keys {
			if i == 8 {
				fmt.Fprintf(w, "  … and %d more kinds\n", len(keys)-8)
				break
			}
			fmt.Fprintf(w, "  %6d  %s\n", d.Errors[k], k)
		}
	}
	switch s := d.Extra["delivery_skipped_districts"].(type) {
	case int64:
		if s > 0 {
			fmt.Fprintf(w, "delivery: %d districts had no undelivered order and were skipped (whole run)\n", s)
		}
	case float64: // read back from a stored document
		if s > 0 {
			fmt.Fprintf(w, "delivery: %.0f districts had no undelivered order and were skipped (whole run)\n", s)
		}
	}
	if d.Result.TPMSource != "" {
		fmt.Fprintf(w, "TPM source: %s\n", d.Result.TPMSource)
	}
	if q := d.Queries; q != nil {
		fmt.Fprintf(w, "queries: %d (reads %d, writes %d, other %d), %.1f per second\n", q.Total, q.Reads, q.Writes, q.Other, q.PerSec)
	}
	if d.Result.NOPM != nil && d.Result.TPM != nil {
		fmt.Fprintf(w, "TEST RESULT : System achieved %d NOPM from %d %s TPM\n", *d.Result.NOPM, *d.Result.TPM, d.Target.Name)
	} else if d.Result.TPS != nil {
		fmt.Fprintf(w, "TEST RESULT : System achieved %.1f TPS", *d.Result.TPS)
		if d.Result.QPS != nil {
			fmt.Fprintf(w, " and %.1f QPS", *d.Result.QPS)
		}
		fmt.Fprintf(w, " on %s\n", d.Target.Name)
	}
}
