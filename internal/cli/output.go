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

	"github.com/cairn-bench/cairn/internal/event"
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
			// The rate and the time left as serve's build progress has them (event.Loading).
			l := event.Loading{Elapsed: time.Since(t0), Total: p.total, Rows: n}
			eta := "?"
			if left, ok := l.Left(); ok {
				eta = left.Round(time.Second).String()
			}
			fmt.Fprintf(p.w, "%s: %d/%d rows (%.0f%%), %.0f rows/s, ETA %s\n", p.label, n, p.total, 100*float64(n)/float64(p.total), l.Rate(), eta)
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
