package observe

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/undo"
)

// waitReader follows a wait source over a run: a sampled source (PostgreSQL) is read every
// interval by its own goroutine and counted per event; a cumulative one (performance_schema) is
// read at the window's edges and at each progress interval, and differenced.
type waitReader struct {
	src      target.WaitSource
	interval time.Duration
	t0       time.Time

	mu                 sync.Mutex
	inWindow           bool
	window, sinceMark  map[string]*results.WaitEvent
	samples, markCount int64
	start, last, end   map[string]target.Wait
	intervals          []results.WaitInterval
	readErr            error

	stop chan struct{}
	done chan struct{}
}

func newWaitReader(src target.WaitSource, interval time.Duration, t0 time.Time) *waitReader {
	r := &waitReader{src: src, interval: interval, t0: t0, window: map[string]*results.WaitEvent{},
		sinceMark: map[string]*results.WaitEvent{}, stop: make(chan struct{}), done: make(chan struct{})}
	if src.Sampled() {
		go r.sample()
	} else {
		close(r.done)
	}
	return r
}

func (r *waitReader) sample() {
	defer close(r.done)
	ctx := context.Background()
	tk := time.NewTicker(r.interval)
	defer tk.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-tk.C:
		}
		ws, err := r.src.Read(ctx)
		r.mu.Lock()
		if err != nil {
			r.readErr = err
		}
		for _, w := range ws {
			add(r.sinceMark, w, w.Count, 0)
			r.markCount += w.Count
			if r.inWindow {
				add(r.window, w, w.Count, 0)
				r.samples += w.Count
			}
		}
		r.mu.Unlock()
	}
}

func add(m map[string]*results.WaitEvent, w target.Wait, n int64, ms float64) {
	e := m[w.Name]
	if e == nil {
		e = &results.WaitEvent{Name: w.Name, Class: w.Class}
		m[w.Name] = e
	}
	e.Count += n
	e.TimeMs += ms
}

func (r *waitReader) readAll() map[string]target.Wait {
	ws, err := r.src.Read(context.Background())
	if err != nil {
		r.readErr = err
		return nil
	}
	m := make(map[string]target.Wait, len(ws))
	for _, w := range ws {
		m[w.Name] = w
	}
	return m
}

// edge marks the window's start or end.
func (r *waitReader) edge(start bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.src.Sampled() {
		r.inWindow = start
		return
	}
	if start {
		r.start = r.readAll()
		r.last = r.start
	} else {
		r.end = r.readAll()
	}
}

// mark ends a progress interval: its top waits are kept, and returned for the progress line.
func (r *waitReader) mark() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var evs []results.WaitEvent
	if r.src.Sampled() {
		evs = shares(r.sinceMark, r.markCount, true)
		r.sinceMark, r.markCount = map[string]*results.WaitEvent{}, 0
	} else {
		now := r.readAll()
		if r.last != nil && now != nil {
			evs = shares(diff(r.last, now), 0, false)
		}
		if now != nil {
			r.last = now
		}
	}
	if len(evs) > 5 {
		evs = evs[:5]
	}
	if len(evs) > 0 {
		r.intervals = append(r.intervals, results.WaitInterval{T: math.Round(time.Since(r.t0).Seconds()*10) / 10, Top: evs})
	}
	return results.TopWaits(evs, 2)
}

func diff(a, b map[string]target.Wait) map[string]*results.WaitEvent {
	out := map[string]*results.WaitEvent{}
	for name, w := range b {
		p := a[name]
		if dc, dt := w.Count-p.Count, w.TimeMs-p.TimeMs; dc > 0 || dt > 0 {
			// Never below zero: a source may report an event's time less a part it counts apart
			// (MySQL's handler calls less their row-lock waits), which can end in another event.
			out[name] = &results.WaitEvent{Name: name, Class: w.Class, Count: dc, TimeMs: math.Round(max(0, dt)*1000) / 1000}
		}
	}
	return out
}

// shares orders events by their part: of the samples for a sampled source, of the timed waits'
// total time for a cumulative one (untimed events, InnoDB's counters, come after with share 0).
func shares(m map[string]*results.WaitEvent, samples int64, sampled bool) []results.WaitEvent {
	var total float64
	for _, e := range m {
		total += e.TimeMs
	}
	out := make([]results.WaitEvent, 0, len(m))
	for _, e := range m {
		ev := *e
		switch {
		case sampled:
			ev.Samples, ev.Count = ev.Count, 0
			if samples > 0 {
				ev.Share = math.Round(1e4*float64(ev.Samples)/float64(samples)) / 1e4
			}
		case total > 0:
			ev.Share = math.Round(1e4*ev.TimeMs/total) / 1e4
		}
		out = append(out, ev)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Share != b.Share {
			return a.Share > b.Share
		}
		if a.Samples+a.Count != b.Samples+b.Count {
			return a.Samples+a.Count > b.Samples+b.Count
		}
		return a.Name < b.Name
	})
	return out
}

// result is the window's waits.
func (r *waitReader) result() *results.Waits {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := &results.Waits{Source: r.src.Describe(), Sampled: r.src.Sampled(), Notes: append([]string(nil), r.src.Notes()...),
		Intervals: r.intervals}
	if w.Sampled {
		w.IntervalMs = int(r.interval / time.Millisecond)
		w.Samples = r.samples
		w.Events = shares(r.window, r.samples, true)
		if r.samples == 0 {
			w.Notes = append(w.Notes, "no active session was seen in the window's samples")
		}
	} else if r.start != nil && r.end != nil {
		d := diff(r.start, r.end)
		w.Events = shares(d, 0, false)
		var zero []string
		for name, e := range r.end {
			if e.Class == "innodb_metrics" && d[name] == nil {
				zero = append(zero, strings.TrimPrefix(name, "innodb_metrics/"))
			}
		}
		if len(zero) > 0 {
			sort.Strings(zero)
			w.Notes = append(w.Notes, "INNODB_METRICS counters that stayed at zero over the window (this version may no longer count them): "+strings.Join(zero, ", "))
		}
	}
	if len(w.Events) > 0 {
		w.Groups = results.GroupWaits(w.Events)
		w.Synch = results.GroupAlone(w.Events, results.WaitSynch)
		if len(w.Synch) > 20 {
			w.Synch = w.Synch[:20]
		}
	}
	if w.Synch == nil {
		w.Synch = []results.WaitEvent{}
	}
	if len(w.Events) > 50 {
		w.Events = w.Events[:50]
	}
	if w.Events == nil {
		w.Events = []results.WaitEvent{}
	}
	if r.readErr != nil {
		w.Notes = append(w.Notes, fmt.Sprintf("a read of the waits failed: %v", r.readErr))
	}
	return w
}

// close stops the sampler and restores what the source changed.
func (r *waitReader) close(ctx context.Context) error {
	select {
	case <-r.stop:
	default:
		close(r.stop)
	}
	<-r.done
	return r.src.Close(ctx)
}

// waitsObserver follows the server's wait events over the run, on a connection of its own.
type waitsObserver struct {
	Base
	r    *waitReader
	conn target.Conn
}

func init() {
	Register(Kind{Name: "waits", Order: 40, Start: startWaits})
}

func startWaits(ctx context.Context, env *Env) (Observer, error) {
	t := env.Target
	wt, ok := t.(target.Waiter)
	if env.Off() || !ok {
		return nil, nil
	}
	c, err := env.conn(ctx, t)
	if err != nil {
		return nil, err
	}
	save := func(kind string, data any) (func() error, error) {
		e, err := undo.Record(kind, fmt.Sprintf("%s on %s", kind, target.Where(t)), target.Where(t), data)
		if err != nil {
			return nil, err
		}
		return e.Done, nil
	}
	src, err := wt.OpenWaits(ctx, c, env.Waits == "instrument", save)
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("wait events: %w", err)
	}
	interval := env.WaitSample
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	return &waitsObserver{r: newWaitReader(src, interval, time.Now()), conn: c}, nil
}

func (o *waitsObserver) Window(start bool) { o.r.edge(start) }

// Interval returns the interval's top waits for the progress line.
func (o *waitsObserver) Interval() string { return o.r.mark() }

func (o *waitsObserver) Close(ctx context.Context) error {
	err := o.r.close(context.WithoutCancel(ctx))
	o.r.src = closedSource{o.r.src}
	if o.conn != nil {
		o.conn.Close()
		o.conn = nil
	}
	return err
}

// closedSource keeps a closed source's description for the result.
type closedSource struct{ target.WaitSource }

func (closedSource) Close(context.Context) error { return nil }

func (o *waitsObserver) Fill(d *results.Document) { d.Waits = o.r.result() }
