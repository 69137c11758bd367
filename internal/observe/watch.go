package observe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/undo"
)

// Options say what to observe: the run spec's observe, wait-sample, waits and server-cpus.
type Options struct {
	Off        bool
	WaitSample time.Duration
	Instrument bool
	ServerCPUs []int
	ClientCPUs []int // already applied to this process (PinSelf); recorded
}

// Watch observes one run of a target: per-core CPU each second, the server process's CPU over
// the window, its wait events, and the binding of its processes. Start it before the run's VUs
// connect (a bound server's new backends inherit its binding), Close it after, on every path.
type Watch struct {
	opts    Options
	server  *Server
	pin     *Pinning
	cpu     *CPUSampler
	waits   *waitReader
	wconn   target.Conn
	srv     [2]float64
	srvOK   [2]bool
	srvNote string
}

// RemoteError is --server-cpus for a server cairn cannot bind.
type RemoteError struct{ Where, Why string }

func (e *RemoteError) Error() string {
	return fmt.Sprintf("--server-cpus: the server at %s is not a process cairn can bind (%s): cairn binds only a server on this host", e.Where, e.Why)
}

// BadInput marks the error as the user's to fix.
func (e *RemoteError) BadInput() {}

// Start begins watching t.
func Start(ctx context.Context, t target.Target, o Options) (*Watch, error) {
	w := &Watch{opts: o, server: FindServer(t)}
	if len(o.ServerCPUs) > 0 {
		if t.Dialect().Embedded {
			return nil, &RemoteError{Where: target.Where(t), Why: "it runs inside cairn: use --client-cpus"}
		}
		if !w.server.Local {
			return nil, &RemoteError{Where: target.Where(t), Why: w.server.Why}
		}
		if w.server.PID == 0 {
			return nil, fmt.Errorf("--server-cpus: the server at %s runs here, but %s", target.Where(t), w.server.Why)
		}
		p, err := PinServer(w.server.PID, o.ServerCPUs, fmt.Sprintf("%s's %s", t.Name(), w.server.Name))
		if err != nil {
			return nil, err
		}
		w.pin = p
	}
	if o.Off {
		return w, nil
	}
	w.cpu = NewCPUSampler()
	if wt, ok := t.(target.Waiter); ok {
		c, err := t.Conn(ctx)
		if err != nil {
			_ = w.Close(ctx)
			return nil, err
		}
		save := func(kind string, data any) (func() error, error) {
			e, err := undo.Record(kind, fmt.Sprintf("%s on %s", kind, target.Where(t)), target.Where(t), data)
			if err != nil {
				return nil, err
			}
			return e.Done, nil
		}
		src, err := wt.OpenWaits(ctx, c, o.Instrument, save)
		if err != nil {
			c.Close()
			_ = w.Close(ctx)
			return nil, fmt.Errorf("wait events: %w", err)
		}
		interval := o.WaitSample
		if interval <= 0 {
			interval = 100 * time.Millisecond
		}
		w.wconn, w.waits = c, newWaitReader(src, interval, time.Now())
	}
	return w, nil
}

// Tick adds one second's per-core CPU.
func (w *Watch) Tick(sec *metrics.Second) {
	if w.cpu != nil {
		sec.CPU, sec.Cores = w.cpu.Sample()
	}
}

// Window marks the start (true) or end of the measured window.
func (w *Watch) Window(start bool) {
	if w.opts.Off {
		return
	}
	i := 0
	if !start {
		i = 1
	}
	if w.server.PID > 0 && !w.server.embedded() {
		v, err := w.server.CPU()
		w.srv[i], w.srvOK[i] = v, err == nil
		if err != nil {
			w.srvNote = err.Error()
		}
	}
	if w.waits != nil {
		w.waits.edge(start)
	}
}

// Interval ends a progress interval; it returns the interval's top waits for the progress line.
func (w *Watch) Interval() string {
	if w.waits == nil {
		return ""
	}
	return w.waits.mark()
}

func (s *Server) embedded() bool { return s.FoundBy == "embedded in cairn" }

// Close restores what the watch changed (the server's binding, the wait instruments) and
// closes its connection.
func (w *Watch) Close(ctx context.Context) error {
	var errs []error
	if w.waits != nil {
		errs = append(errs, w.waits.close(context.WithoutCancel(ctx)))
		w.waits.src = closedSource{w.waits.src}
	}
	if w.wconn != nil {
		w.wconn.Close()
		w.wconn = nil
	}
	if w.pin != nil {
		errs = append(errs, w.pin.Restore())
		w.pin = nil
	}
	return errors.Join(errs...)
}

// closedSource keeps a closed source's description for the result.
type closedSource struct{ target.WaitSource }

func (closedSource) Close(context.Context) error { return nil }

// Fill writes what was observed into the run's document: the server's CPU (per transaction as
// the client's is counted), the waits, the binding.
func (w *Watch) Fill(d *results.Document) {
	s := &results.Server{PID: w.server.PID, Process: w.server.Name, FoundBy: w.server.FoundBy}
	switch {
	case w.server.embedded():
		s.Where, s.PID, s.Process, s.FoundBy = "embedded", 0, "", ""
		s.Note = "SQLite runs inside cairn: its CPU is the client's"
	case !w.server.Local:
		s.Where, s.Note = "remote", "remote"
	default:
		s.Where = "local"
		if w.server.PID == 0 {
			s.Note = w.server.Why
		}
	}
	if w.srvOK[0] && w.srvOK[1] {
		s.CPUSeconds = roundTo(w.srv[1]-w.srv[0], 3)
		if c := d.Client; c.CPUusPerTxn > 0 && c.CPUSeconds > 0 {
			txns := c.CPUSeconds * 1e6 / c.CPUusPerTxn
			s.CPUusPerTxn = roundTo(s.CPUSeconds*1e6/txns, 1)
		}
	} else if s.Where == "local" && s.Note == "" && w.srvNote != "" {
		s.Note = w.srvNote
	}
	if w.opts.Off {
		s = nil
	}
	d.Server = s
	if w.waits != nil {
		d.Waits = w.waits.result()
	}
	if len(w.opts.ClientCPUs) > 0 || len(w.opts.ServerCPUs) > 0 {
		d.Binding = &results.Binding{ClientCPUs: FormatCPUList(w.opts.ClientCPUs), ServerCPUs: FormatCPUList(w.opts.ServerCPUs)}
	}
}

func roundTo(v float64, places int) float64 { return round(v, places) }
