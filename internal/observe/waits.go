package observe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/undo"
)

// waitReader follows one server's wait source over a run: a sampled source (PostgreSQL) is read
// every interval by its own goroutine and counted per event; a cumulative one (performance_schema)
// is read at the window's edges and at each progress interval, and differenced.
type waitReader struct {
	src      target.WaitSource
	where    string // host:port, or host:port/db for a source of one database
	interval time.Duration

	mu                 sync.Mutex
	inWindow           bool
	window, sinceMark  map[string]*results.WaitEvent
	samples, markCount int64
	start, last, end   map[string]target.Wait
	readErr            error

	// conn serializes the statements on the source's connection (lock order: mu, then conn).
	conn sync.Mutex
	// sessions samples each session's wait for the session history where Read does not (a
	// cumulative source); secEvents are the sessions seen per event in this second's secReads
	// samples so far, classes each event's class.
	sessions  target.SessionSampler
	own       func() []int64 // cairn's own sessions on the server, left out of the history
	secEvents map[string]int64
	secReads  int
	classes   map[string]string
	keep      bool // the session history is kept (--session-history on)

	stop chan struct{}
	done chan struct{}
}

// newWaitReader starts following src; own, when set, names cairn's own sessions on its server;
// history says whether it keeps the session history.
func newWaitReader(src target.WaitSource, where string, interval time.Duration, own func() []int64, history bool) *waitReader {
	r := &waitReader{src: src, where: where, interval: interval, own: own, window: map[string]*results.WaitEvent{},
		sinceMark: map[string]*results.WaitEvent{}, stop: make(chan struct{}), done: make(chan struct{}),
		secEvents: map[string]int64{}, classes: map[string]string{}, keep: history}
	if ss, ok := src.(target.SessionSampler); ok && !src.Sampled() && history {
		r.sessions = ss
	}
	if l, ok := src.(target.OwnLeaver); ok && src.Sampled() && own != nil {
		l.LeaveOut(own)
	}
	if src.Sampled() || r.sessions != nil {
		go r.sample()
	} else {
		close(r.done)
	}
	return r
}

// history says whether the reader samples sessions for the session history.
func (r *waitReader) history() bool { return r.keep && (r.src.Sampled() || r.sessions != nil) }

// second returns the sessions seen per event in the samples since the last call, and how many
// samples those were.
func (r *waitReader) second() (map[string]int64, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, n := r.secEvents, r.secReads
	r.secEvents, r.secReads = map[string]int64{}, 0
	return m, n
}

// sampleSessions reads the sessions' waits for the history on a cumulative source, under r.conn:
// the edges' and the progress lines' readings use the same connection. r.mu is held only to
// count, so that the engine's Tick never waits for a query.
func (r *waitReader) sampleSessions(ctx context.Context) {
	var own []int64
	if r.own != nil {
		own = r.own()
	}
	r.conn.Lock()
	ws, err := r.sessions.Sessions(ctx, own)
	r.conn.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.readErr = err
		return
	}
	r.count(ws)
}

// count adds one sample's sessions to the second's (r.mu held).
func (r *waitReader) count(ws []target.Wait) {
	r.secReads++
	for _, w := range ws {
		r.secEvents[w.Name] += w.Count
		r.classes[w.Name] = w.Class
	}
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
		if r.sessions != nil {
			r.sampleSessions(ctx)
			continue
		}
		ws, err := r.src.Read(ctx)
		r.mu.Lock()
		if err != nil {
			r.readErr = err
		} else if r.keep {
			r.count(ws)
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
	r.conn.Lock()
	ws, err := r.src.Read(context.Background())
	r.conn.Unlock()
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

// mark ends a progress interval and returns its events (and samples, for a sampled source).
func (r *waitReader) mark() (map[string]*results.WaitEvent, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.src.Sampled() {
		m, n := r.sinceMark, r.markCount
		r.sinceMark, r.markCount = map[string]*results.WaitEvent{}, 0
		return m, n
	}
	now := r.readAll()
	var m map[string]*results.WaitEvent
	if r.last != nil && now != nil {
		m = diff(r.last, now)
	}
	if now != nil {
		r.last = now
	}
	return m, 0
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

// windowEvents are the window's events (and samples, for a sampled source), and what to note
// about them; nil events when the window was not read.
func (r *waitReader) windowEvents() (map[string]*results.WaitEvent, int64, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	notes := append([]string(nil), r.src.Notes()...)
	var m map[string]*results.WaitEvent
	if r.src.Sampled() {
		m = r.window
		if r.samples == 0 {
			notes = append(notes, "no active session was seen in the window's samples")
		}
	} else if r.start != nil && r.end != nil {
		m = diff(r.start, r.end)
		var zero []string
		for name, e := range r.end {
			if e.Class == "innodb_metrics" && m[name] == nil {
				zero = append(zero, strings.TrimPrefix(name, "innodb_metrics/"))
			}
		}
		if len(zero) > 0 {
			sort.Strings(zero)
			notes = append(notes, "INNODB_METRICS counters that stayed at zero over the window (this version may no longer count them): "+strings.Join(zero, ", "))
		}
	}
	if r.readErr != nil {
		notes = append(notes, fmt.Sprintf("a read of the waits failed: %v", r.readErr))
	}
	return m, r.samples, notes
}

// merge adds the events of several servers, by name.
func merge(ms []map[string]*results.WaitEvent) map[string]*results.WaitEvent {
	if len(ms) == 1 {
		return ms[0]
	}
	out := map[string]*results.WaitEvent{}
	for _, m := range ms {
		for name, e := range m {
			if o := out[name]; o != nil {
				o.Count += e.Count
				o.TimeMs += e.TimeMs
			} else {
				c := *e
				out[name] = &c
			}
		}
	}
	return out
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

// waitsObserver follows the server's wait events over the run, on a connection of its own; on a
// shard set, every server's (every database's, where the server reports one database's waits),
// added up, and each server's apart.
type waitsObserver struct {
	Base
	readers []*waitReader
	unit    string // what each reader reads: "servers", or "databases"
	conns   []target.Conn
	t0      time.Time

	mu        sync.Mutex
	intervals []results.WaitInterval
	// top is the events the last interval's line names (TopWaits).
	top []results.WaitEvent
	// live reads the waits at each live segment's edges.
	live liveWaits
	// history is the session history's seconds (Tick).
	history []results.HistorySecond
}

func init() {
	Register(Kind{Name: "waits", Order: 40, Start: startWaits})
}

func startWaits(ctx context.Context, env *Env) (Observer, error) {
	if env.Off() {
		return nil, nil
	}
	members := []target.Target{env.Target}
	if c, ok := env.Target.(target.Composite); ok {
		if _, own := env.Target.(target.Waiter); !own {
			members = c.Members()
		}
	}
	interval := env.WaitSample
	if interval <= 0 {
		interval = 100 * time.Millisecond
	}
	o := &waitsObserver{t0: time.Now(), unit: "servers"}
	seen := map[string]bool{}
	for _, m := range members {
		wt, ok := m.(target.Waiter)
		if !ok {
			continue
		}
		key := m.Address()
		if _, perDB := m.(target.DatabaseWaits); perDB {
			key, o.unit = target.Where(m), "databases"
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		c, err := env.conn(ctx, m)
		if err != nil {
			o.Close(ctx)
			return nil, err
		}
		save := func(kind string, data any) (func() error, error) {
			e, err := undo.Record(kind, fmt.Sprintf("%s on %s", kind, target.Where(m)), target.Where(m), data)
			if err != nil {
				return nil, err
			}
			return e.Done, nil
		}
		src, err := wt.OpenWaits(ctx, c, target.WaitOptions{Instrument: env.Waits == "instrument", History: env.SessionHistory != "off"}, save)
		if err != nil {
			c.Close()
			o.Close(ctx)
			if len(members) > 1 {
				return nil, fmt.Errorf("wait events on %s: %w", key, err)
			}
			return nil, fmt.Errorf("wait events: %w", err)
		}
		o.conns = append(o.conns, c)
		var own func() []int64
		if ids, where := env.own, target.Where(m); ids != nil {
			own = func() []int64 { return ids.of(where) }
		}
		o.readers = append(o.readers, newWaitReader(src, key, interval, own, env.SessionHistory != "off"))
	}
	if len(o.readers) == 0 {
		return nil, nil
	}
	return o, nil
}

// Window reads every server's waits at the window's edge, all at once: the edge waits for the
// slowest server, not for their sum.
func (o *waitsObserver) Window(start bool) {
	read := span{begun: time.Now()}
	var wg sync.WaitGroup
	for _, r := range o.readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.edge(start)
		}()
	}
	wg.Wait()
	read.done = time.Now()
	o.liveWindow(start, read)
}

func (o *waitsObserver) sampled() bool { return o.readers[0].src.Sampled() }

// Tick ends a second of the session history: the sessions every server's samples saw in it, by
// event and class, added up over the servers; its reads the most samples any server took.
func (o *waitsObserver) Tick(sec *metrics.Second) {
	h := results.HistorySecond{T: sec.T, Classes: map[string]int64{}, Events: map[string]int64{}}
	sampling := false
	for _, r := range o.readers {
		if !r.history() {
			continue
		}
		sampling = true
		m, n := r.second()
		h.Reads = max(h.Reads, n)
		r.mu.Lock()
		for name, k := range m {
			h.Events[name] += k
			h.Classes[r.classes[name]] += k
		}
		r.mu.Unlock()
	}
	if !sampling {
		return
	}
	if h.Reads > 0 {
		sec.Sessions = make(map[string]float64, len(h.Classes))
		for c, n := range h.Classes {
			sec.Sessions[c] = math.Round(1000*float64(n)/float64(h.Reads)) / 1000
		}
	}
	o.mu.Lock()
	o.history = append(o.history, h)
	o.mu.Unlock()
}

// sessionHistory is the session history for the document; nil where no session was sampled.
func (o *waitsObserver) sessionHistory() *results.SessionHistory {
	o.mu.Lock()
	defer o.mu.Unlock()
	var src string
	if r := o.readers[0]; r.sessions != nil {
		src = r.sessions.DescribeSessions()
	} else if r.src.Sampled() {
		src = r.src.Describe()
	}
	if len(o.history) == 0 || src == "" {
		return nil
	}
	if len(o.readers) > 1 {
		src += fmt.Sprintf("; of each of %d %s, added up", len(o.readers), o.unit)
	}
	h := &results.SessionHistory{Source: src, IntervalMs: int(o.readers[0].interval / time.Millisecond),
		Classes: []string{}, Events: map[string]string{}, Seconds: o.history}
	total := map[string]int64{}
	for _, s := range o.history {
		for c, n := range s.Classes {
			total[c] += n
		}
	}
	for _, r := range o.readers {
		r.mu.Lock()
		for name, c := range r.classes {
			h.Events[name] = c
			if _, ok := total[c]; !ok {
				total[c] = 0
			}
		}
		r.mu.Unlock()
	}
	for c := range total {
		h.Classes = append(h.Classes, c)
	}
	sort.Slice(h.Classes, func(i, j int) bool {
		a, b := h.Classes[i], h.Classes[j]
		if total[a] != total[b] {
			return total[a] > total[b]
		}
		return a < b
	})
	return h
}

// Interval keeps the interval's top waits, over every server, and returns the top two for the
// progress line.
func (o *waitsObserver) Interval() string {
	o.top = nil
	ms := make([]map[string]*results.WaitEvent, 0, len(o.readers))
	var n int64
	for _, r := range o.readers {
		m, k := r.mark()
		if m != nil {
			ms = append(ms, m)
		}
		n += k
	}
	if len(ms) == 0 {
		return ""
	}
	evs := shares(merge(ms), n, o.sampled())
	if len(evs) > 5 {
		evs = evs[:5]
	}
	if len(evs) > 0 {
		o.mu.Lock()
		o.intervals = append(o.intervals, results.WaitInterval{T: math.Round(time.Since(o.t0).Seconds()*10) / 10, Top: evs})
		o.mu.Unlock()
	}
	o.top = NamedWaits(evs, 2)
	return results.TopWaits(evs, 2)
}

// NamedWaits are the events with a share among those results.TopWaits(evs, n) names (the first
// n with a share or a count).
func NamedWaits(evs []results.WaitEvent, n int) []results.WaitEvent {
	var top []results.WaitEvent
	shown := 0
	for _, e := range evs {
		if shown == n {
			break
		}
		if e.Share > 0 {
			top = append(top, e)
		}
		if e.Share > 0 || e.Count > 0 {
			shown++
		}
	}
	return top
}

// TopWaits are the wait events the last interval's line names with their share.
func (o *waitsObserver) TopWaits() []results.WaitEvent { return o.top }

func (o *waitsObserver) Close(ctx context.Context) error {
	var errs []error
	for i, r := range o.readers {
		if _, closed := r.src.(closedSource); closed {
			continue
		}
		errs = append(errs, r.close(context.WithoutCancel(ctx)))
		o.readers[i].src = closedSource{r.src}
	}
	for _, c := range o.conns {
		c.Close()
	}
	o.conns = nil
	return errors.Join(errs...)
}

// closedSource keeps a closed source's description for the result.
type closedSource struct{ target.WaitSource }

func (closedSource) Close(context.Context) error { return nil }

// Fill writes the window's waits: every server's added up (shares of the sum), and on a set of
// several servers each one's top events apart.
func (o *waitsObserver) Fill(d *results.Document) {
	w := &results.Waits{Source: o.readers[0].src.Describe(), Sampled: o.sampled()}
	if len(o.readers) > 1 {
		w.Source += fmt.Sprintf("; of each of %d %s, added up (each one's in per_server)", len(o.readers), o.unit)
	}
	var ms []map[string]*results.WaitEvent
	var samples int64
	noted := map[string][]string{}
	var order []string
	for _, r := range o.readers {
		m, n, notes := r.windowEvents()
		if m != nil {
			ms = append(ms, m)
		}
		samples += n
		for _, t := range notes {
			if noted[t] == nil {
				order = append(order, t)
			}
			noted[t] = append(noted[t], r.where)
		}
		if len(o.readers) > 1 {
			evs := shares(m, n, w.Sampled)
			w.PerServer = append(w.PerServer, results.ServerWaits{Server: r.where, Samples: n, Events: evs[:min(5, len(evs))]})
		}
	}
	for _, t := range order {
		if len(noted[t]) == len(o.readers) || len(o.readers) == 1 {
			w.Notes = append(w.Notes, t)
		} else {
			w.Notes = append(w.Notes, strings.Join(noted[t], ", ")+": "+t)
		}
	}
	o.mu.Lock()
	w.Intervals = o.intervals
	o.mu.Unlock()
	if w.Sampled {
		w.IntervalMs = int(o.readers[0].interval / time.Millisecond)
		w.Samples = samples
	}
	if len(ms) > 0 {
		w.Events = shares(merge(ms), samples, w.Sampled)
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
	w.Segments = o.liveSegments(w.Sampled)
	w.History = o.sessionHistory()
	if len(w.Events) > 50 {
		w.Events = w.Events[:50]
	}
	if w.Events == nil {
		w.Events = []results.WaitEvent{}
	}
	d.Waits = w
}
