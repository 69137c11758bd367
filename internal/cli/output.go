package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/sink"
	"github.com/cairn-bench/cairn/internal/summary"
	"github.com/cairn-bench/cairn/internal/target"
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
			rate := float64(n) / time.Since(t0).Seconds()
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

// terminal is the command line's subscriber to the sink: its events as lines, what a run
// measured on stdout, what is under way on stderr.
type terminal struct{ out, err io.Writer }

func (t terminal) Event(e sink.Event) {
	switch e.Kind {
	case sink.Begun, sink.Note:
		if s, st := e.Study, e.Plan; s != nil {
			fmt.Fprintf(t.out, "study %s: %s on %s %s (%s), %s, order %s, seed %d\n", s.Name, s.Workload, s.Target.Name, s.Target.Version,
				target.Redact(st.Spec.DB), plural(len(st.Steps()), "run"), s.Order, st.Spec.Seed)
			return
		}
		fmt.Fprintln(t.out, e.Line)
	case sink.StepBegun:
		what := plural(e.VU, "VU")
		if e.Case != "" {
			what = fmt.Sprintf("%s, %s, repeat %d/%d", e.Case, what, e.Repeat+1, e.Repeats)
		} else if e.Repeats > 1 {
			what += fmt.Sprintf(" (repeat %d/%d)", e.Repeat+1, e.Repeats)
		}
		fmt.Fprintf(t.err, "run %d/%d: %s\n", e.I+1, e.N, what)
	case sink.StepDone:
		fmt.Fprintln(t.out, summary.StepLine(e.Run))
	case sink.Applied:
		switch {
		case e.ReadBack == "":
			fmt.Fprintf(t.out, "restored %s = %s\n", e.Name, e.Value)
		case e.Live:
			fmt.Fprintf(t.out, "live: %s = %s (reads %s)\n", e.Name, e.Value, e.ReadBack)
		default:
			fmt.Fprintf(t.out, "set %s = %s (reads %s)\n", e.Name, e.Value, e.ReadBack)
		}
	case sink.Summary:
		switch {
		case e.Run != nil:
			summary.Run(t.out, e.Run, e.Spec)
		case e.Profile != nil:
			summary.Profile(t.out, e.Profile)
		case e.Study != nil:
			summary.Study(t.out, e.Study)
		}
	case sink.Stored:
		fmt.Fprintf(t.out, "stored as %s %s in %s\n", docWord[e.What], e.ID, e.Path)
	case sink.NotStored:
		fmt.Fprintln(t.out, "the study measured nothing: it is not stored")
	case sink.Written:
		fmt.Fprintf(t.out, "%s document written to %s\n", docWord[e.What], e.Path)
	case sink.Interrupted:
		fmt.Fprintf(t.err, "cairn: interrupted before the %s started\n", e.What)
	}
}

// docWord is what a stored document is called: a run's is its result.
var docWord = map[string]string{results.KindRun: "result", results.KindProfile: "profile", results.KindStudy: "study"}
