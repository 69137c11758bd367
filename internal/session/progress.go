package session

import (
	"fmt"
	"strings"
	"time"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/textfmt"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Progresser is a workload that words its own live progress line (tpcb: pgbench's -P line); the
// session asks the workload for it, so the contract below stays free of the event types.
type Progresser interface {
	ProgressLine(p event.Progress, opts any, rate, limit bool) string
}

// progress words the engine's samples as a line: the workload's own (a Progresser), or the
// common one for its kind of headline.
func (se *Session) progress(def *workload.Run) func(*event.Progress) string {
	pr, own := se.W.(Progresser)
	s := se.Spec
	return func(p *event.Progress) string {
		if own {
			return pr.ProgressLine(*p, s.Options, s.Rate > 0, s.LatencyLimit > 0)
		}
		return commonLine(*p, def)
	}
}

// commonLine is the progress line of workloads without their own: for a server-counted headline,
// its per-minute rate and TPM with their source and every type's p95; for client-counted ones,
// transactions per second over the interval and the main type's p95.
func commonLine(p event.Progress, def *workload.Run) string {
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
	if def.Headline == workload.HeadlineServer {
		fmt.Fprintf(&b, " %s %8.0f  TPM %8.0f (%s)  p95 ms", def.HeadlineName, p.HeadlinePM, p.TxnPM, p.Source)
		for i := range def.Types {
			if i < len(p.P95) {
				fmt.Fprintf(&b, " %s %.1f", def.Label(i), p.P95[i])
			}
		}
		fmt.Fprintf(&b, "  errors %d retries %d", p.Errors, p.Retries)
		if p.Waits != "" {
			fmt.Fprintf(&b, "  waits %s", p.Waits)
		}
		return b.String()
	}
	tps := 0.0
	if p.Interval > 0 {
		tps = float64(p.Count) / p.Interval.Seconds()
	}
	p95 := 0.0
	if def.Main < len(p.P95) {
		p95 = p.P95[def.Main]
	}
	fmt.Fprintf(&b, "  tps %9.1f  p95 ms %s  errors %d  retries %d", tps, textfmt.Ms(p95), p.Errors, p.Retries)
	if p.Waits != "" {
		fmt.Fprintf(&b, "  waits %s", p.Waits)
	}
	return b.String()
}
