package observe

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/target"
)

// runningStmt is the name of the sampler's prepared statement on its own connections.
const runningStmt = "cairn_running_threads"

// countSource is one server's query of its running threads, prepared on its own connection.
type countSource struct {
	c     target.Conn
	args  []any
	v     int64 // the scan's destination, kept so that a sample allocates none
	where string
	t     tally // this server's own samples (the running's lock guards it)
}

// tally is a count's samples: the current second's max and sum, and the window's histogram
// (running threads are small integers, so their p99 is exact in bounded memory).
type tally struct {
	secMax, secSum int64
	hist           []int64
	n              int64
	sum            int64
}

func (t *tally) add(v int64, window bool) {
	v = max(0, v)
	t.secMax = max(t.secMax, v)
	t.secSum += v
	if !window {
		return
	}
	if v >= int64(len(t.hist)) {
		t.hist = append(t.hist, make([]int64, int(min(v, 1<<16))+1-len(t.hist))...)
	}
	t.hist[min(v, int64(len(t.hist)-1))]++
	t.n++
	t.sum += v
}

// figures are the window's max, p99 (nearest rank) and mean.
func (t *tally) figures() (mx, p99, mean float64) {
	if t.n == 0 {
		return 0, 0, 0
	}
	rank := int64(math.Ceil(0.99 * float64(t.n)))
	var seen int64
	p99 = -1
	for v, c := range t.hist {
		seen += c
		if p99 < 0 && seen >= rank {
			p99 = float64(v)
		}
		if c > 0 {
			mx = float64(v)
		}
	}
	return mx, p99, roundTo(float64(t.sum)/float64(t.n), 2)
}

type running struct {
	Base
	interval time.Duration
	srcs     []*countSource
	source   string
	// loadavg is /proc/loadavg, held open and read again at offset 0 for each sample into buf:
	// the smallest file that has the run queue (procfs.Stat parses all of /proc/stat, with an
	// allocation per field, 50 times a second).
	loadavg *os.File
	buf     [128]byte
	host    bool

	mu          sync.Mutex
	inWindow    bool
	server, rq  tally
	secN        int
	series      []results.RunningSecond
	each        []*countSource // every source, kept after Close for the section
	notes       []string
	serverError bool

	stop chan struct{}
	done chan struct{}
}

func init() {
	Register(Kind{Name: results.RunningSection, Order: 45, Start: startRunning})
}

func startRunning(ctx context.Context, env *Env) (Observer, error) {
	if env.Off() || env.RunningSample <= 0 {
		return nil, nil
	}
	o := &running{interval: env.RunningSample, stop: make(chan struct{}), done: make(chan struct{})}
	if f, err := os.Open("/proc/loadavg"); err == nil {
		o.loadavg = f
		_, o.host = o.runQueue()
		if !o.host {
			f.Close()
		}
	}
	if !o.host {
		o.notes = append(o.notes, "the host's run queue is not readable on this host (/proc/loadavg)")
	}
	members := []target.Target{env.Target}
	if c, ok := env.Target.(target.Composite); ok {
		if _, own := env.Target.(target.RunningThreads); !own {
			members = c.Members()
		}
	}
	seen := map[string]bool{}
	var kinds []string
	for _, m := range members {
		rt, ok := m.(target.RunningThreads)
		if !ok {
			continue
		}
		sql, args, perDB := rt.RunningSQL()
		key := m.Address()
		if perDB {
			key = target.Where(m)
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		c, err := env.conn(ctx, m)
		if err != nil {
			o.closeConns()
			return nil, fmt.Errorf("running threads: %w", err)
		}
		o.srcs = append(o.srcs, &countSource{c: c, args: args, where: key})
		if err := c.Prepare(ctx, runningStmt, sql); err != nil {
			o.closeConns()
			return nil, fmt.Errorf("running threads: preparing %q: %w", sql, err)
		}
		if k := m.Name(); !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	o.each = o.srcs
	if len(o.srcs) > 0 {
		o.source = runningSource(kinds, len(o.srcs))
	} else {
		o.notes = append(o.notes, "the server's running threads are not measured: "+env.Target.Name()+" has no query of them")
	}
	if len(o.srcs) == 0 && !o.host {
		o.closeConns()
		return nil, nil
	}
	go o.sample()
	return o, nil
}

// runningSource says what the server's figure counts.
func runningSource(kinds []string, n int) string {
	var parts []string
	for _, k := range kinds {
		switch k {
		case "PostgreSQL":
			parts = append(parts, "PostgreSQL: the database's active client backends (pg_stat_activity, the sampler left out)")
		default:
			parts = append(parts, k+": Threads_running less the sampler")
		}
	}
	s := strings.Join(parts, "; ")
	if n > 1 {
		s += fmt.Sprintf(", summed over %d servers", n)
	}
	return s
}

func (o *running) sample() {
	defer close(o.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-o.stop
		cancel()
	}()
	tk := time.NewTicker(o.interval)
	defer tk.Stop()
	for {
		select {
		case <-o.stop:
			return
		case <-tk.C:
		}
		n, q, ok, err := o.read(ctx)
		select {
		case <-o.stop:
			return
		default:
		}
		o.mu.Lock()
		if err != nil && !o.serverError {
			o.serverError = true
			o.notes = append(o.notes, "a read of the server's running threads failed: "+err.Error())
		}
		if ok {
			o.server.add(n, o.inWindow)
			for _, s := range o.srcs {
				s.t.add(s.v, o.inWindow)
			}
		}
		if o.host {
			o.rq.add(q, o.inWindow)
		}
		o.secN++
		o.mu.Unlock()
	}
}

// read takes one sample: the server's running threads (ok: read) and the host's run queue.
func (o *running) read(ctx context.Context) (n, q int64, ok bool, err error) {
	ok = len(o.srcs) > 0
	for _, s := range o.srcs {
		if err = s.c.QueryRow(ctx, runningStmt, s.args...).Scan(&s.v); err != nil {
			ok = false
			break
		}
		n += s.v
	}
	if o.host {
		q, _ = o.runQueue()
	}
	return n, q, ok, err
}

// Tick ends one second of samples.
func (o *running) Tick(sec *metrics.Second) {
	o.mu.Lock()
	defer o.mu.Unlock()
	p := results.RunningSecond{T: sec.T, Samples: o.secN, Max: o.server.secMax, HostMax: o.rq.secMax}
	if o.secN > 0 {
		p.Mean = roundTo(float64(o.server.secSum)/float64(o.secN), 2)
		p.HostMean = roundTo(float64(o.rq.secSum)/float64(o.secN), 2)
	}
	o.series = append(o.series, p)
	o.secN, o.server.secMax, o.server.secSum, o.rq.secMax, o.rq.secSum = 0, 0, 0, 0, 0
}

func (o *running) Window(start bool) {
	o.mu.Lock()
	o.inWindow = start
	o.mu.Unlock()
}

// Close stops the sampler and closes its connections.
func (o *running) Close(context.Context) error {
	select {
	case <-o.stop:
	default:
		close(o.stop)
	}
	<-o.done
	o.closeConns()
	return nil
}

func (o *running) closeConns() {
	for _, s := range o.srcs {
		s.c.Close()
	}
	o.srcs = nil
	if o.loadavg != nil {
		o.loadavg.Close()
		o.loadavg = nil
	}
}

// runQueue reads the running count of /proc/loadavg ("0.52 0.58 0.59 3/812 4242": 3), which is
// procs_running of /proc/stat.
func (o *running) runQueue() (int64, bool) {
	n, err := o.loadavg.ReadAt(o.buf[:], 0)
	if n == 0 && err != nil {
		return 0, false
	}
	return parseRunQueue(o.buf[:n])
}

// parseRunQueue is the number before the slash of /proc/loadavg's fourth field.
func parseRunQueue(b []byte) (int64, bool) {
	field := 0
	for i := 0; i < len(b); i++ {
		if b[i] == ' ' {
			field++
			continue
		}
		if field != 3 {
			continue
		}
		var v int64
		j := i
		for ; j < len(b) && b[j] >= '0' && b[j] <= '9'; j++ {
			v = v*10 + int64(b[j]-'0')
		}
		return v, j > i && j < len(b) && b[j] == '/'
	}
	return 0, false
}

func (o *running) Section() any {
	o.mu.Lock()
	defer o.mu.Unlock()
	r := &results.Running{IntervalMs: int(o.interval / time.Millisecond), Source: o.source, Samples: max(o.server.n, o.rq.n),
		Series: append([]results.RunningSecond{}, o.series...), Notes: append([]string(nil), o.notes...)}
	if o.source != "" && o.server.n > 0 {
		mx, p99, mean := o.server.figures()
		r.Max, r.P99, r.Mean = &mx, &p99, &mean
	}
	if len(o.each) > 1 {
		for _, s := range o.each {
			mx, p99, mean := s.t.figures()
			r.PerServer = append(r.PerServer, results.ServerRunning{Server: s.where, Max: mx, P99: p99, Mean: mean})
		}
	}
	if o.host && o.rq.n > 0 {
		mx, p99, mean := o.rq.figures()
		r.Host = &results.RunQueue{Max: mx, P99: p99, Mean: mean}
	}
	if r.Samples == 0 {
		r.Notes = append(r.Notes, "no sample fell in the window")
	}
	return r
}
