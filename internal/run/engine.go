// Package run is the engine: it starts virtual users, paces them (closed loop, keying/think times or
// an open-loop arrival schedule), times transactions, retries, reconnects, takes the snapshots that
// bound the measured window, and emits progress.
package run

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/steady"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/workload"
)

// Config is the engine's part of a run's configuration.
type Config struct {
	VUs        int
	Rampup     time.Duration
	Duration   time.Duration
	Rate       float64 // transactions per second in total; 0 = closed loop
	Pace       bool    // keying and think times
	MaxRetries int
	Progress   time.Duration
	Seed       uint64
	// LatencyLimit counts transactions slower than it as late; in open loop it also skips those
	// already later than it when their turn comes (pgbench's -L with -R).
	LatencyLimit time.Duration
	// IDs, when set, are the VUs' ids (one per VU): a part of a run drives its share of a larger
	// run's VUs, each with the id, and so the random streams, it has there.
	IDs []int
	// StartAt, when set, is when the measured window starts: the parts of one run agree on it.
	StartAt time.Time
	// Terminals, when positive, are the run's terminals: they key, think and submit, and the VUs
	// (executors, each with its connection) serve them from a queue (pool.go).
	Terminals int
	// TerminalIDs, when set, are the terminals' ids (one per terminal): a part's share of a larger
	// run's terminals, as IDs are of its VUs; AllTerminals is then the run's count.
	TerminalIDs  []int
	AllTerminals int
	// MaxOutage, when positive, ends the run when the database has given no service for longer
	// (an outage, Outcome.Outages); the window is then cut short where it stopped.
	MaxOutage time.Duration
	// UntilSteady, when positive, extends the rampup past Rampup until the warm-up of the
	// headline's throughput is judged over (steady.SettledSoFar, once a second on the monitor's
	// tick), to at most UntilSteady; Outcome.UntilSteady says how it ended.
	UntilSteady time.Duration
	// Load, when set, changes the load inside the window: VUs connect at the start (the most any
	// step runs), Active of them run first, the others wait parked on their connections, and
	// from each step's time (from the window's start) its count runs and, in an open loop, its
	// total rate is shared by them.
	Load   []workload.LoadStep
	Active int
}

// ConfigOf is the engine's configuration for one run of a spec's engine settings: at vu VUs
// (a profile's step), with seed, pacing VUs when the workload keys and thinks.
func ConfigOf(s workload.Engine, vu int, seed uint64, pace bool) Config {
	c := Config{VUs: vu, Rampup: s.Rampup, Duration: s.Duration, Rate: s.Rate, Pace: pace,
		MaxRetries: s.MaxRetries, Progress: s.Progress, Seed: seed, LatencyLimit: s.LatencyLimit, MaxOutage: s.MaxOutage,
		UntilSteady: s.RampupUntilSteady}
	if steps, _ := workload.ParseSchedule(s.Schedule, s.Duration); len(steps) > 0 {
		// The spec was checked: a schedule is a run's, without terminals; vu is the count that
		// runs first, and the most any step runs connect.
		c.Load, c.Active = steps, vu
		for _, st := range steps {
			c.VUs = max(c.VUs, st.VUs)
		}
	}
	if s.Terminals > 0 {
		c.Terminals, c.VUs = s.Terminals, s.Connections
		if c.VUs == 0 {
			c.VUs = s.Terminals
		}
	}
	return c
}

// Snapshot is one reading of the database's own counters.
type Snapshot struct {
	At       time.Time
	Headline int64
	Counter  int64
	Start    int64 // server start time (restart detection)
	OK       bool
	// NoCounter: the server answered without its transaction counter (target.Reading), so
	// Counter counts nothing.
	NoCounter bool
	// Stalled VUs were still inside a transaction when the reading was taken, after waiting up to
	// EdgeWait for them, so their sessions could not publish their counts (target.LaggingCounter).
	Stalled int
	// Servers are each server's counter (target.Reading's), for a primary with replicas.
	Servers []int64
	// Unflushed is the most committed transactions Counter can lack at this reading: what stalled
	// sessions may hold back (or every session, where the server cannot be made to publish).
	Unflushed int64
}

// Observer watches a run on the engine's clock (internal/observe is the one): the engine calls it
// from its monitor goroutine, once a second, at the window's edges and at each progress line.
type Observer interface {
	// Tick adds the observer's part of one second to sec.
	Tick(sec *metrics.Second)
	// Window marks the start (true) or the end of the measured window.
	Window(start bool)
	// Interval ends a progress interval; it returns what the progress line shows of it.
	Interval() string
}

// SessionOwner is an Observer that samples the server's sessions and leaves cairn's own out:
// the engine hands it the monitor's connection. Own says whether it sent c a statement.
type SessionOwner interface {
	Own(ctx context.Context, t target.Target, c target.Conn) bool
}

// TopWaiter is an Observer that gives, after Interval, the wait events the interval's line
// names (event.Progress.TopWaits).
type TopWaiter interface {
	TopWaits() []results.WaitEvent
}

// Outcome is what a run measured.
type Outcome struct {
	Start, End     Snapshot
	Window         *metrics.Set
	PlannedWindow  time.Duration
	Interrupted    bool
	WindowStarted  bool
	ClientCPU      time.Duration
	HostCPU        time.Duration
	HostCPUOK      bool
	Reconnects     int64
	Restarted      bool // the server's start time changed during the window
	Series         []metrics.Second
	StartedAt      time.Time
	WindowStartsAt time.Time
	Statements     *metrics.StmtSet // per statement type, in the window; nil if the workload times none
	// ClientWindow is the span the client's counts cover: transactions and statements are counted
	// when they end inside [rampup, rampup+duration) of the run's clock, so it is the planned
	// window, or the part of it before an interruption. The database snapshots bound a window of
	// their own (Start.At to End.At), which server-counted figures use.
	ClientWindow time.Duration
	// OwnTxns are the transactions of cairn's own statements the server's counter took between the
	// two snapshots (the edge flushes and the monitor's readings), to be left out of TPM.
	OwnTxns int64
	// InFlight is what was still running when the window ended; After, per type, the transactions
	// that were in flight then and completed after it (the window's figures leave them out).
	InFlight InFlight
	After    *metrics.Set
	// Loads are the load schedule's changes as made (Config.Load), in their order.
	Loads []LoadChange
	// PeakRSS is the client process's peak resident memory in bytes (0: unknown).
	PeakRSS int64
	// UntilSteady is how a rampup until steady (Config.UntilSteady) ended; nil without one.
	UntilSteady *UntilSteady
	// Pool is set when terminals were served by pooled connections (Config.Terminals).
	Pool *PoolStats
	// Outages are the stretches of the run without service, on its clock: each from a
	// connection lost to the database's next answer (Engine.lostService, Engine.served), the
	// last one ended where the run stopped if the database had not answered by then.
	Outages []Span
	// ConnectFailures are the failed attempts to open a connection again inside the window.
	ConnectFailures int64
	// OutageStop says the run stopped because an outage outlasted Config.MaxOutage.
	OutageStop bool
	// IssueLag is how late the VUs issued their transactions in the window; nil when it was not
	// measured (terminals over pooled connections, VUs abandoned at the end).
	IssueLag *IssueLag
	// Clock is how late the run's clock came to the window's ticks and edges.
	Clock ClockLag
}

// ClockLag is how late the run's clock (the monitor) woke to the window's seconds and edges, on
// its own clock: each second's tick inside the window (not the one at its end) against the whole
// second it was due at, and each edge against its planned time. A late tick puts more than its
// second into its point of the series (results.LateTicks); a late edge moves the window.
type ClockLag struct {
	Ticks            int
	TickSum, TickMax time.Duration
	StartLate        time.Duration
	EndLate          time.Duration
	Ended            bool // the window ended at its planned end (not Ctrl-C, not an outage): EndLate is set
}

// Span is a stretch of the run's clock.
type Span struct{ From, To time.Duration }

// Overlap is how much of s lies in [from, to).
func (s Span) Overlap(from, to time.Duration) time.Duration {
	return max(0, min(s.To, to)-max(s.From, from))
}

// InFlight counts the transactions under way at the window's end.
type InFlight struct {
	AtEnd  int           // transactions running when the window ended
	Oldest time.Duration // how long the oldest of them had been running then
	// Unfinished of them were still running when cairn stopped waiting for the VUs (the grace
	// period after the window); UnfinishedOldest is how long the oldest had run by then.
	Unfinished       int
	UnfinishedOldest time.Duration
}

// UntilSteady is how a rampup until steady ended.
type UntilSteady struct {
	// Settled: the warm-up was judged over at Judged (since the run's start), from the seconds
	// until then, ending at WarmupEnd; the window started at the next tick. Otherwise the rampup
	// ran to its bound (or the run stopped first) without the warm-up judged over.
	Settled   bool
	Judged    time.Duration
	WarmupEnd time.Duration
}

// Engine runs one workload against one target.
type Engine struct {
	Cfg      Config
	Target   target.Target
	Types    []string
	Headline int // index of the headline transaction type, or -1
	// HeadlineName names the run's headline figure in the progress samples (event.Progress).
	HeadlineName string
	NewVU        func(id int) (workload.VU, error)
	// HeadlineSQL is the scalar the window snapshots read (see workload.Headliner); may be "".
	HeadlineSQL string
	// Main is the type whose mean latency and schedule lag the progress samples show.
	Main int
	// Observe, when set, watches the host and the server over the run.
	Observe Observer
	// Statements are the statement types VUs that implement workload.StatementTimer report.
	Statements []workload.Statement
	// Lender, in a run of terminals (Config.Terminals), gives the monitor's statements, and the
	// observers' that use it, the executors' connections instead of connections of their own.
	Lender *Lender

	// Bus hears the run's seconds (event.Tick), its progress samples (event.Progress: one every
	// Cfg.Progress and one at the end) and its window's edges (event.Window), from the monitor
	// goroutine, in order; its subscribers must return quickly, since the monitor waits for them.
	// nil: no one listens, and the engine takes no progress readings.
	Bus *event.Bus
	// Word words a progress sample as its line (event.Progress.Line); nil: no line.
	Word func(p *event.Progress) string

	rec        *metrics.Recorder
	stop       chan struct{}
	stopOnce   sync.Once
	reconnects atomic.Int64
	t0         time.Time
	// ws is the window's start (ns since t0), atomic since a rampup until steady
	// (Config.UntilSteady) moves it while the VUs run; we its planned end (the monitor's own).
	ws atomic.Int64
	we time.Duration
	// end is the window's end as the VUs see it (ns since t0): we, or the moment of an interruption.
	end atomic.Int64
	cpu [2]cpuReading // at the start and the end of the window

	vus []*vuState
	// lag is how long a session can hold its counts back (target.LaggingCounter), 0 when the
	// counter does not lag or no server figure is read; flushSQL makes a session publish them.
	lag      time.Duration
	flushSQL string
	edge     atomic.Pointer[edge]
	// countsOwn: the server's transaction counter counts the statements cairn sends in the
	// target's database (target.CountsOwn), so they are counted here and left out of TPM and
	// of the progress lines' server rates.
	countsOwn bool
	monStmts  int64 // statements the monitor has sent (the monitor goroutine's own)
	edgeStmts int64 // the VUs' publishing statements at the window's edges
	ownBase   int64 // monStmts at the start edge's reading
	ownEnd    int64 // Outcome.OwnTxns
	// pool serves the terminals, when there are; lentTxns counts the observers' statements run
	// on its executors' connections (Lender), lentBase their count at the start edge's reading.
	pool     *pool
	lentTxns atomic.Int64
	lentBase int64

	afterMu sync.Mutex
	after   *metrics.Set

	// lost is when the outage under way began (ns since t0, plus one; 0: the database serves);
	// spans are the outages that ended; connFails counts the failed attempts to connect again.
	lost      atomic.Int64
	connFails atomic.Int64
	spanMu    sync.Mutex
	spans     []Span

	// load is the load in force (Config.Load): its one atomic load a transaction tells a VU
	// whether to park and, in an open loop, its rate.
	load       atomic.Pointer[loadState]
	loadMu     sync.Mutex
	loadTimers []*time.Timer
	loadDone   bool
	loads      []LoadChange
}

// loadState is the load in force: the VUs running (a VU whose index is at or above active waits
// parked on gate, which the next change closes), each one's arrivals per second in an open
// loop (the total rate over the VUs running), and since when on the run's clock.
type loadState struct {
	active int
	perVU  float64
	at     time.Duration
	gate   chan struct{}
}

// LoadChange is a step of a load schedule as the engine made it: Planned from the window's
// start, At the instant it took effect from the window's start and T on the run's clock (the
// time series'), VUs the count that runs from then on.
type LoadChange struct {
	Planned, At, T time.Duration
	VUs            int
	Rate           float64 // open loop: the total rate from then on
}

// terminalID is the id of the run's i-th terminal.
func (c Config) terminalID(i int) int {
	if c.TerminalIDs != nil {
		return c.TerminalIDs[i]
	}
	return i
}

// vuID is the id of the run's i-th VU.
func (c Config) vuID(i int) int {
	if c.IDs != nil {
		return c.IDs[i]
	}
	return i
}

// StartPassedError is a part of a run that is ready only after the window all parts share started.
type StartPassedError struct{ StartAt time.Time }

func (e *StartPassedError) Error() string {
	return fmt.Sprintf("the run's window started at %s, before this part was ready: start the parts again with a later --start-at (or a new --part-run)",
		e.StartAt.UTC().Format(time.RFC3339))
}

// BadInput marks the error as the user's to fix (exit 2).
func (e *StartPassedError) BadInput() {}

// waitStart waits until rampup before at; a part that got ready late runs a shorter rampup, so
// that its window still starts at at. It refuses an at that has passed.
func waitStart(ctx context.Context, at time.Time, rampup time.Duration) error {
	left := time.Until(at)
	if left <= 0 {
		return &StartPassedError{StartAt: at}
	}
	if wait := left - rampup; wait > 0 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
	return nil
}

// EdgeWait is how long an edge waits for the VUs to reach a transaction boundary.
const EdgeWait = time.Second

// edge is one window edge's meeting of the VUs: each publishes its session's counts at its next
// transaction boundary and waits there until the snapshot has been read, so the counters read
// cover every commit of every VU up to that instant and none after it.
type edge struct {
	mu        sync.Mutex
	met       []bool // per VU: it has published (or had nothing to publish)
	arrived   int
	sent      int            // of them, those that sent the statement (each a transaction)
	closed    bool           // the monitor stopped waiting: later arrivals go on without meeting
	flushing  sync.WaitGroup // publications under way
	all       chan struct{}  // closed when every VU has met the edge
	release   chan struct{}  // closed once the snapshot has been read
	unflushed int64          // bound of what VUs whose publication failed may hold
}

type cpuReading struct {
	proc, host time.Duration
	hostOK     bool
}

func readCPU() cpuReading {
	h, ok := metrics.HostCPU()
	return cpuReading{proc: metrics.ProcessCPU(), host: h, hostOK: ok}
}

// CheckCapacity refuses, before any connection is opened, a run of vus virtual users that the
// database cannot take: each VU holds a connection, and the engine one more for the snapshots.
func CheckCapacity(ctx context.Context, t target.Target, vus int) error {
	return checkCapacity(ctx, t, nil, vus, vus+1, false)
}

// checkCapacity refuses a run of vus VUs that needs need more connections than the database
// accepts; held, when set, is a connection already open that the run will use (Lender), and
// pooled says cairn's own statements ride the VUs' connections.
func checkCapacity(ctx context.Context, t target.Target, held target.Conn, vus, need int, pooled bool) error {
	cp, ok := t.(target.Capacity)
	if !ok {
		return nil
	}
	c := held
	if c == nil {
		var err error
		if c, err = t.Conn(ctx); err != nil {
			return err
		}
		defer c.Close()
	}
	free, desc, err := cp.FreeConnections(ctx, c)
	if err != nil {
		return nil // a limit that cannot be read is the server's to enforce
	}
	if need > free {
		if held != nil {
			free++ // the run's already
		}
		return &CapacityError{VUs: vus, Where: target.Where(t), Free: free, Desc: desc, Pooled: pooled}
	}
	return nil
}

// CapacityError is a run of more VUs than the database accepts connections.
type CapacityError struct {
	VUs, Free   int
	Where, Desc string
	// Pooled: the VUs are a pool's connections, which cairn's own statements share.
	Pooled bool
}

func (e *CapacityError) Error() string {
	if e.Pooled {
		return fmt.Sprintf("%d connections: %s has room for %d (%s): %d or fewer fit",
			e.VUs, e.Where, e.Free, e.Desc, e.Fit())
	}
	return fmt.Sprintf("%d VUs: %s accepts %d more connections (%s), and cairn needs one per VU and one for the snapshots: %d VUs or fewer fit",
		e.VUs, e.Where, e.Free, e.Desc, e.Fit())
}

// Fit is the most VUs the database has connections for.
func (e *CapacityError) Fit() int {
	if e.Pooled {
		return max(e.Free, 0)
	}
	return max(e.Free-1, 0)
}

// BadInput marks the error as the user's to fix (exit 2).
func (e *CapacityError) BadInput() {}

// Run blocks until the window has been measured or ctx is cancelled (Ctrl-C), and returns what
// was measured either way.
func (e *Engine) Run(ctx context.Context) (*Outcome, error) {
	cfg := e.Cfg
	var pl *pool
	lend := false // cairn's own statements ride the executors' connections
	// handed is the Lender's own connection, which becomes the first executor's: the run holds
	// cfg.VUs connections from the start to the end, one of them opened before it.
	var handed *lease
	if cfg.Terminals > 0 {
		var err error
		if pl, err = e.newPool(); err != nil {
			return nil, err
		}
		e.pool = pl
		if e.Lender != nil {
			lend = true
			handed = e.Lender.attach(pl)
			defer func() {
				if handed != nil {
					handed.c.Close() // not taken by an executor
				}
				e.Lender.detach(pl, nil)
			}()
		}
	}
	need := cfg.VUs + 1 // and the monitor's
	var held target.Conn
	if lend {
		need = cfg.VUs
		if handed != nil {
			held, need = handed.c, need-1
		}
	}
	if err := checkCapacity(ctx, e.Target, held, cfg.VUs, need, lend); err != nil {
		return nil, err
	}
	e.stop = make(chan struct{})
	shards := min(cfg.VUs, 64)
	// Terminals' latency includes the wait for a connection: the service time is kept apart.
	e.rec = metrics.NewRecorder(len(e.Types), shards, cfg.Rate > 0 || pl != nil)

	// Connect every VU before the clock starts: a run that cannot connect fails here, not later.
	vus := make([]*vuState, cfg.VUs)
	var wg sync.WaitGroup
	errs := make([]error, cfg.VUs)
	sem := make(chan struct{}, 16)
	cctx := target.WithConcurrency(ctx, cfg.VUs)
	for i := range vus {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if ctx.Err() != nil {
				errs[i] = ctx.Err() // Ctrl-C while connecting: open no more
				return
			}
			v, err := e.NewVU(cfg.vuID(i))
			if err != nil {
				errs[i] = err
				return
			}
			var c target.Conn
			var prepared map[string]bool
			if i == 0 && handed != nil {
				c, prepared, handed = handed.c, handed.prepared, nil
			} else if c, err = e.Target.Conn(cctx); err != nil {
				errs[i] = err
				return
			}
			// With the run's concurrency: a VU that opens connections of its own dials them as
			// the engine does (fanout's, to its shards).
			if err := v.Bind(cctx, c); err != nil {
				c.Close()
				errs[i] = fmt.Errorf("prepare statements: %w", err)
				return
			}
			vus[i] = &vuState{id: i, vu: v, conn: c, shard: e.rec.Shard(i), poke: make(chan struct{}, 1), prepared: prepared, due: -1,
				rng: rand.New(rand.NewPCG(cfg.Seed, uint64(cfg.vuID(i))+0x9e3779b9))}
			if st, ok := v.(workload.StatementTimer); ok && len(e.Statements) > 0 {
				vus[i].stmts = &stmtSink{e: e, v: vus[i], set: metrics.NewStmtSet(len(e.Statements))}
				st.SetStatementSink(vus[i].stmts)
			}
		}(i)
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, v := range vus {
			if v != nil {
				v.conn.Close()
			}
		}
		return nil, firstErr(errs)
	}
	mon, err := e.monConn(ctx)
	if err != nil {
		return nil, err
	}
	e.vus = vus
	first := &loadState{active: cfg.VUs, gate: make(chan struct{})}
	if len(cfg.Load) > 0 {
		first.active = cfg.Active
	}
	if cfg.Rate > 0 {
		first.perVU = cfg.Rate / float64(first.active)
	}
	e.load.Store(first)
	e.after = metrics.NewSet(len(e.Types), cfg.Rate > 0)
	e.countsOwn = target.CountsOwn(e.Target) && e.Target.TxnCounterSQL() != ""
	if lc, ok := e.Target.(target.LaggingCounter); ok && e.HeadlineSQL != "" && e.Target.TxnCounterSQL() != "" {
		asked := mon
		if lend {
			asked = vus[0].conn // the executors do not serve yet: ask on one of their connections
		}
		if stmt, hold, err := lc.CounterFlush(ctx, asked); err == nil {
			e.flushSQL, e.lag = stmt, hold
		} else {
			e.lag = time.Second // cannot tell: the readings are bounded as if it could not flush
		}
	}

	out := &Outcome{PlannedWindow: cfg.Duration}
	if !cfg.StartAt.IsZero() {
		if err := waitStart(ctx, cfg.StartAt, cfg.Rampup); err != nil {
			mon.Close()
			for _, v := range vus {
				v.conn.Close()
			}
			return nil, err
		}
	}
	e.t0 = time.Now()
	out.StartedAt = e.t0
	ws := cfg.Rampup
	if cfg.UntilSteady > 0 {
		// The bound, until the monitor judges the warm-up over (monitor.untilSteady).
		ws = cfg.UntilSteady
	}
	if !cfg.StartAt.IsZero() {
		// The window starts at the agreed instant, whatever rampup was left to reach it, and
		// lasts the planned time, as every part's does.
		ws = max(cfg.StartAt.Sub(e.t0), 0)
	}
	e.setStart(ws, out)

	// VUs get a context that is never cancelled: drivers such as pgx start a watcher goroutine for
	// every statement whose context can be cancelled, a cost paid on each round trip. VUs stop at the
	// stop flag between transactions instead; one still stuck after the grace period is abandoned.
	vuCtx := target.WithConcurrency(context.Background(), cfg.VUs)
	var vwg sync.WaitGroup
	if pl != nil {
		pl.start()
	}
	for _, v := range vus {
		vwg.Add(1)
		go func(v *vuState) {
			defer vwg.Done()
			if pl != nil {
				pl.serve(vuCtx, v)
				return
			}
			e.loop(vuCtx, v)
		}(v)
	}

	counted := e.monitor(ctx, &mon, out)

	// Let in-flight transactions finish (they are outside the window), then cut the rest off; after
	// Ctrl-C only briefly, since the user asked to stop (a queue of VUs waiting for SQLite's one
	// writer would otherwise take seconds to drain).
	e.stopOnce.Do(func() { close(e.stop) })
	done := make(chan struct{})
	go func() { vwg.Wait(); close(done) }()
	grace := 10 * time.Second
	if ctx.Err() != nil {
		grace = 300 * time.Millisecond
	}
	abandoned := false
	select {
	case <-done:
	case <-time.After(grace):
		abandoned = true
		now := time.Since(e.t0)
		for _, v := range vus {
			if b := v.busy.Load(); b > 0 && time.Duration(b-1) < time.Duration(e.end.Load()) {
				out.InFlight.Unfinished++
				out.InFlight.UnfinishedOldest = max(out.InFlight.UnfinishedOldest, now-time.Duration(b-1))
			}
		}
	}
	if !abandoned {
		for i, v := range vus {
			if v.conn == nil {
				continue
			}
			if i == 0 && lend {
				// The first executor's connection goes back to the Lender, for the observers'
				// last statements: no connection is opened while the others close.
				e.Lender.detach(pl, &lease{c: v.conn, prepared: v.prepared})
				continue
			}
			v.conn.Close()
		}
	}
	if mon != nil {
		mon.Close()
	}

	out.Window = e.rec.Window()
	e.lastSecond(out, counted)
	e.afterMu.Lock()
	out.After, e.after = e.after, nil // an abandoned VU may still finish
	e.afterMu.Unlock()
	if pl == nil && !abandoned {
		out.IssueLag = &IssueLag{}
		for _, v := range vus {
			out.IssueLag.N += v.lag.N
			out.IssueLag.Sum += v.lag.Sum
			out.IssueLag.Max = max(out.IssueLag.Max, v.lag.Max)
		}
	}
	if len(e.Statements) > 0 && !abandoned {
		out.Statements = metrics.NewStmtSet(len(e.Statements))
		for _, v := range vus {
			if v.stmts != nil {
				out.Statements.Merge(v.stmts.set)
			}
		}
	}
	if out.WindowStarted {
		out.ClientCPU = e.cpu[1].proc - e.cpu[0].proc
		out.HostCPU = e.cpu[1].host - e.cpu[0].host
		out.HostCPUOK = e.cpu[0].hostOK && e.cpu[1].hostOK
	}
	out.Reconnects = e.reconnects.Load()
	out.Loads = e.stopLoad()
	out.PeakRSS = metrics.PeakRSS()
	if pl != nil {
		<-pl.done
		out.Pool = pl.stats()
	}
	return out, nil
}

// start is the window's start as the VUs see it, since t0.
func (e *Engine) start() time.Duration { return time.Duration(e.ws.Load()) }

// setStart sets the window's start to ws (since t0) and its planned end after it. A start moved
// while the VUs run must lie ahead of the clock: a VU that ends a transaction after it then reads
// the new start.
func (e *Engine) setStart(ws time.Duration, out *Outcome) {
	e.ws.Store(int64(ws))
	e.we = ws + e.Cfg.Duration
	e.end.Store(int64(e.we))
	out.WindowStartsAt = e.t0.Add(ws)
}

func firstErr(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// monConn is the monitor's connection: its own, or the executors' through the Lender. Its
// own is one of cairn's sessions, which the observers' session history leaves out.
func (e *Engine) monConn(ctx context.Context) (target.Conn, error) {
	if e.Lender != nil && e.pool != nil {
		return &lentConn{l: e.Lender, mon: true}, nil
	}
	c, err := e.Target.Conn(ctx)
	if err == nil {
		if o, ok := e.Observe.(SessionOwner); ok && o.Own(ctx, e.Target, c) {
			e.monStmts++
		}
	}
	return c, err
}

// snapshot reads the headline scalar, the server's transaction counter and its start time as the
// target reads them (target.Snapshot), so they describe the same instant. It tries for about
// ten seconds: a window's edge needs its reading.
func (e *Engine) snapshot(ctx context.Context, mon *target.Conn) Snapshot {
	return e.snapshotTries(ctx, mon, 50)
}

// snapshotTries reads a snapshot in at most tries attempts, 200 ms apart.
func (e *Engine) snapshotTries(ctx context.Context, mon *target.Conn, tries int) Snapshot {
	for attempt := 1; ; attempt++ {
		if *mon == nil {
			c, err := e.monConn(ctx)
			if err == nil {
				*mon = c
			}
		}
		if *mon != nil {
			t1 := time.Now()
			e.monStmts++
			r, err := target.Snapshot(ctx, e.Target, *mon, e.HeadlineSQL)
			if err == nil {
				t2 := time.Now()
				return Snapshot{At: t1.Add(t2.Sub(t1) / 2), Headline: r.Headline, Counter: r.Counter, Start: r.Start, OK: true, NoCounter: r.NoCounter, Servers: r.Servers}
			}
			(*mon).Close()
			*mon = nil
		}
		if attempt >= tries || ctx.Err() != nil {
			return Snapshot{At: time.Now()}
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// edgeSnapshot reads the snapshot at a window edge. Where the server's counter lags
// (target.LaggingCounter), it first holds every VU at its next transaction boundary, for at most
// EdgeWait, with its session's counts published, and publishes the monitor's own; VUs still inside
// a transaction then are stalled, and the reading says how much they may hold back.
func (e *Engine) edgeSnapshot(ctx context.Context, mon *target.Conn, start bool) Snapshot {
	if e.lag == 0 {
		return e.snapshot(ctx, mon)
	}
	if e.flushSQL == "" {
		// Nothing makes a session publish: every VU may hold back its last moments' commits.
		e.ownEdge(start, 0)
		s := e.snapshot(ctx, mon)
		for _, v := range e.vus {
			s.Unflushed += v.held.Load()
		}
		s.Unflushed += 2 // the monitor's own readings
		return s
	}
	ed := &edge{met: make([]bool, len(e.vus)), all: make(chan struct{}), release: make(chan struct{})}
	if len(e.vus) == 0 {
		close(ed.all)
	}
	e.edge.Store(ed)
	for _, v := range e.vus {
		select {
		case v.poke <- struct{}{}:
		default:
		}
	}
	// Wait for every VU, or until those missing have been inside their transaction for EdgeWait:
	// a VU stalled since long before the edge is not waited for.
	deadline := time.Now().Add(EdgeWait)
	tk := time.NewTicker(10 * time.Millisecond)
wait:
	for {
		select {
		case <-ed.all:
			break wait
		case now := <-tk.C:
			if !now.Before(deadline) || e.onlyStalled(ed, now.Sub(e.t0)) {
				break wait
			}
		}
	}
	tk.Stop()
	ed.mu.Lock()
	ed.closed = true
	ed.mu.Unlock()
	flushed := make(chan struct{})
	go func() { ed.flushing.Wait(); close(flushed) }()
	select {
	case <-flushed:
	case <-time.After(EdgeWait):
	}
	var stalled int
	var unflushed int64
	ed.mu.Lock()
	for i, v := range e.vus {
		if !ed.met[i] {
			stalled++
			unflushed += v.held.Load()
		}
	}
	unflushed += ed.unflushed
	sent := ed.sent
	ed.mu.Unlock()
	if *mon != nil {
		e.monStmts++
		if _, err := (*mon).Exec(ctx, e.flushSQL, target.SimpleArgs(*mon)...); err != nil {
			unflushed += 2 // the monitor's readings since its last publication
		}
	}
	// The VUs' publications at this edge are counted in this reading, and the monitor's
	// statements since the start edge's publication; the start edge's were before it. The
	// observers' statements on executors' connections ran before those executors published at
	// the edges (executors waiting at an edge serve only the monitor).
	e.ownEdge(start, int64(sent))
	s := e.snapshot(ctx, mon)
	close(ed.release)
	s.Stalled, s.Unflushed = stalled, unflushed
	return s
}

// ownEdge marks cairn's own statements in the target's database at a window edge, before its
// reading: at the start the count the window's own statements start from, at the end
// Outcome.OwnTxns, with sent publishing statements of the VUs at this edge. Nothing where the
// counter does not count them.
func (e *Engine) ownEdge(start bool, sent int64) {
	if !e.countsOwn {
		return
	}
	// The window's count leaves out the start edge's publishing (sent before its reading); the
	// progress interval around the edge counts them, and ownNow leaves them out there.
	e.edgeStmts += sent
	if start {
		e.ownBase = e.monStmts
		e.lentBase = e.lentTxns.Load()
		return
	}
	e.ownEnd = e.monStmts - e.ownBase + sent + e.lentTxns.Load() - e.lentBase
}

// ownNow is how many statements cairn has sent on its own account in the target's database
// so far, where the counter counts them: the progress lines' server rates leave them out.
func (e *Engine) ownNow() int64 {
	if !e.countsOwn {
		return 0
	}
	return e.monStmts + e.edgeStmts + e.lentTxns.Load()
}

// onlyStalled reports whether every VU that has not met ed has been inside its transaction for
// EdgeWait at now.
func (e *Engine) onlyStalled(ed *edge, now time.Duration) bool {
	ed.mu.Lock()
	defer ed.mu.Unlock()
	for i, v := range e.vus {
		if ed.met[i] {
			continue
		}
		if b := v.busy.Load(); b == 0 || now-time.Duration(b-1) < EdgeWait {
			return false
		}
	}
	return true
}

// meet is a VU at a transaction boundary answering an edge: it publishes its session's counts and
// waits until the snapshot has been read (or the run stops). A VU that comes after the monitor
// stopped waiting goes on: the reading has been taken without it.
func (e *Engine) meet(ctx context.Context, v *vuState) {
	ed := e.edge.Load()
	if ed == nil {
		return
	}
	ed.mu.Lock()
	if ed.closed || ed.met[v.id] {
		ed.mu.Unlock()
		return
	}
	ed.flushing.Add(1)
	ed.mu.Unlock()
	// The wait for an edge is the window's, not the VU's lateness: its next transaction is due
	// no sooner than the edge lets it go.
	defer func() {
		if v.due >= 0 {
			v.due = max(v.due, time.Since(e.t0))
		}
	}()
	var err error
	sent := v.conn != nil // a VU without a connection has no session holding counts
	if sent {
		_, err = v.conn.Exec(ctx, e.flushSQL, target.SimpleArgs(v.conn)...)
	}
	ed.mu.Lock()
	if sent {
		ed.sent++
	}
	ed.met[v.id] = true
	ed.arrived++
	if err != nil {
		// The statement failed, so it counts as a rollback, and the session may still hold its
		// counts; a lost connection shows at its next transaction.
		ed.unflushed += v.held.Load()
	}
	if ed.arrived == len(ed.met) {
		close(ed.all)
	}
	ed.mu.Unlock()
	ed.flushing.Done()
	// A pool's executors waiting here lend their connections to the monitor's reading.
	var monLends chan *lendReq
	if e.pool != nil && v.conn != nil {
		monLends = e.pool.monLends
	}
	for {
		select {
		case <-ed.release:
			return
		case <-e.stop:
			return
		case r := <-monLends:
			e.pool.lend(v, r)
		}
	}
}

// monitor is the engine's clock: every second it publishes a Tick, at the window's edges it takes
// the snapshots, and every progress interval it publishes a Progress sample.
type monitor struct {
	e       *Engine
	out     *Outcome
	mon     *target.Conn
	snapCtx context.Context
	// With a rate, the sets keep service time too: progress reports each interval's schedule lag.
	tick, progSet *metrics.Set
	all           *hdrhistogram.Histogram
	lastProg      Snapshot
	lastOwn       int64 // cairn's own statements at lastProg (Engine.ownNow)
	// next is the next second's tick; lastTick the last one's time, lastProgAt the last
	// progress sample's, nextProg when the next one is due.
	next, lastTick, lastProgAt, nextProg time.Duration
	txns, errors                         int64
	// win is the window's counts per type at the last tick, measured this second's share of them.
	win, winNow, measured []metrics.Counts
	// fails is the failed connection attempts at the last tick, failsBase at the window's start.
	fails, failsBase int64
	// carry is the window's part of the tick that ended the seconds before it, which the first
	// second of the window counts; before is that tick's index in the series (-1: none).
	carry  metrics.Second
	before int
	// rate is the headline's throughput in the rampup's seconds so far, from when each began,
	// for a rampup until steady.
	rate, from []float64
}

// monitor runs the clock until the window has been measured or ctx is cancelled, and returns the
// window's counts per type as its last tick read them.
func (e *Engine) monitor(ctx context.Context, mon *target.Conn, out *Outcome) []metrics.Counts {
	m := &monitor{e: e, out: out, mon: mon, snapCtx: context.WithoutCancel(ctx),
		tick: metrics.NewSet(len(e.Types), e.Cfg.Rate > 0), progSet: metrics.NewSet(len(e.Types), e.Cfg.Rate > 0),
		all: metrics.NewHist(), next: time.Second, nextProg: e.Cfg.Progress,
		win: make([]metrics.Counts, len(e.Types)), winNow: make([]metrics.Counts, len(e.Types)), measured: make([]metrics.Counts, len(e.Types)),
		before: -1}
	for {
		m.wait(ctx)
		now := time.Since(e.t0)
		interrupted := ctx.Err() != nil
		if l := e.lost.Load(); e.Cfg.MaxOutage > 0 && l != 0 && now-time.Duration(l-1) > e.Cfg.MaxOutage {
			out.OutageStop = true
		}
		if !out.WindowStarted && now >= e.start() && !interrupted && !out.OutageStop {
			out.Clock.StartLate = now - e.start()
			m.windowStart()
			if e.start() > m.lastTick {
				// The seconds before the window end at its start, wherever it falls.
				m.second(now, false)
				m.sample(now, false)
			}
		}
		windowOver := out.WindowStarted && now >= e.we
		last := interrupted || windowOver || out.OutageStop
		if last {
			if out.WindowStarted {
				if windowOver {
					out.Clock.EndLate, out.Clock.Ended = now-e.we, true
				}
				m.windowEnd(now)
			}
			out.Interrupted = interrupted && !windowOver
			out.OutageStop = out.OutageStop && !windowOver && !interrupted
		}
		if now >= m.next && !last && out.WindowStarted {
			late := now - m.next
			out.Clock.Ticks++
			out.Clock.TickSum += late
			out.Clock.TickMax = max(out.Clock.TickMax, late)
		}
		if now >= m.next || last {
			m.second(now, last)
			m.sample(now, last)
		}
		if last {
			return m.win
		}
	}
}

// wait sleeps until the next second or the window's next edge, whichever comes first.
func (m *monitor) wait(ctx context.Context) {
	e := m.e
	deadline := m.next
	if !m.out.WindowStarted {
		deadline = min(deadline, e.start())
	} else {
		deadline = min(deadline, e.we)
	}
	if wait := deadline - time.Since(e.t0); wait > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
}

// windowStart takes the CPU readings and the snapshot that open the measured window.
func (m *monitor) windowStart() {
	e, out := m.e, m.out
	e.cpu[0] = readCPU()
	out.Start = e.edgeSnapshot(m.snapCtx, m.mon, true)
	out.WindowStarted = true
	m.failsBase = e.connFails.Load()
	if e.Observe != nil {
		e.Observe.Window(true)
	}
	e.Bus.Publish(m.snapCtx, event.Window{Start: true, At: e.t0.Add(e.start())})
	e.startLoad(m.snapCtx)
}

// startLoad sets the load schedule's timers from the window's start, on the run's clock.
func (e *Engine) startLoad(ctx context.Context) {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	for _, st := range e.Cfg.Load {
		st := st
		e.loadTimers = append(e.loadTimers, time.AfterFunc(time.Until(e.t0.Add(e.start()+st.At)), func() { e.applyLoad(ctx, st) }))
	}
}

// applyLoad makes one step of the load schedule: the VUs above its count park at their next
// transaction's boundary, those below it that were parked wake now.
func (e *Engine) applyLoad(ctx context.Context, st workload.LoadStep) {
	e.loadMu.Lock()
	if e.loadDone {
		e.loadMu.Unlock()
		return
	}
	now := time.Since(e.t0)
	old := e.load.Load()
	ls := &loadState{active: old.active, at: now, gate: make(chan struct{})}
	rate := float64(old.active) * old.perVU
	if st.VUs > 0 {
		ls.active = st.VUs
	}
	if st.Rate > 0 {
		rate = st.Rate
	}
	if e.Cfg.Rate > 0 {
		ls.perVU = rate / float64(ls.active)
	}
	// The new state first, then wake the parked VUs: a parked VU reads the state, then waits
	// on its gate.
	e.load.Store(ls)
	close(old.gate)
	lc := LoadChange{Planned: st.At, At: now - e.start(), T: now, VUs: st.VUs, Rate: st.Rate}
	e.loads = append(e.loads, lc)
	e.loadMu.Unlock()
	if st.VUs > 0 {
		n := strconv.Itoa(st.VUs)
		e.Bus.Publish(ctx, event.Applied{Name: results.LoadSetting, Value: n, ReadBack: n, Live: true, At: st.At})
	}
	if st.Rate > 0 {
		r := strconv.FormatFloat(st.Rate, 'g', -1, 64)
		e.Bus.Publish(ctx, event.Applied{Name: results.RateSetting, Value: r, ReadBack: r, Live: true, At: st.At})
	}
}

// stopLoad stops the load schedule's timers and returns the changes made.
func (e *Engine) stopLoad() []LoadChange {
	e.loadMu.Lock()
	defer e.loadMu.Unlock()
	e.loadDone = true
	for _, t := range e.loadTimers {
		t.Stop()
	}
	return e.loads
}

// park holds a VU above the running count (Config.Load) on its connection, between
// transactions, until a change lets it run (true) or the run stops (false). It still meets the
// window's edges.
func (e *Engine) park(ctx context.Context, v *vuState, ls *loadState) (*loadState, bool) {
	v.due = -1 // the wait is the schedule's, not the VU's lateness
	for v.id >= ls.active {
		select {
		case <-e.stop:
			return ls, false
		case <-ls.gate:
			ls = e.load.Load()
		case <-v.poke:
			e.meet(ctx, v)
		}
	}
	return ls, true
}

// windowEnd closes the window at now (its planned end, or an interruption): the client's count
// stops, what is in flight is counted, and the closing CPU readings and snapshot are taken.
func (m *monitor) windowEnd(now time.Duration) {
	e, out := m.e, m.out
	end := min(now, e.we)
	out.ClientWindow = end - e.start()
	// An interruption ends the window now: what completes after it is outside.
	e.end.Store(int64(end))
	for _, v := range e.vus {
		if b := v.busy.Load(); b > 0 && time.Duration(b-1) < end {
			out.InFlight.AtEnd++
			out.InFlight.Oldest = max(out.InFlight.Oldest, now-time.Duration(b-1))
		}
	}
	out.ConnectFailures = e.connFails.Load() - m.failsBase
	out.Outages = e.outages(now)
	out.Loads = e.stopLoad()
	e.cpu[1] = readCPU()
	out.End = e.edgeSnapshot(m.snapCtx, m.mon, false)
	out.OwnTxns = e.ownEnd
	if e.Observe != nil {
		e.Observe.Window(false)
	}
	e.Bus.Publish(m.snapCtx, event.Window{Start: false, At: e.t0.Add(e.we)})
	if out.Start.OK && out.End.OK && (out.End.Start-out.Start.Start > 5 || out.Start.Start-out.End.Start > 5 || out.End.Counter < out.Start.Counter) {
		out.Restarted = true
	}
}

// phase names where the run is at now.
func (m *monitor) phase(last bool) string {
	switch {
	case last:
		return "done"
	case m.out.WindowStarted:
		return "window"
	}
	return "rampup"
}

// second drains the second's transactions from the VUs and publishes its Tick. The series' seconds
// are cut at the window's edges and count by the window's own rule (a transaction is in the window
// when it ended inside it), so that the window's seconds span it exactly and count exactly its
// transactions: the second that ends the rampup ends at the window's start and keeps what ended
// before it (what ended after it, before the tick, goes to the window's first second); a second
// of the window counts the window's transactions only, and the last ends at the window's end
// (what ended after it, in flight at the end, is in no second, as in no other figure).
func (m *monitor) second(now time.Duration, last bool) {
	e := m.e
	e.rec.DrainTick(m.tick)
	prev := m.lastTick
	e.rec.WindowCounts(m.winNow)
	for i, c := range m.winNow {
		p := m.win[i]
		m.measured[i] = metrics.Counts{Count: c.Count - p.Count, Rollbacks: c.Rollbacks - p.Rollbacks, Errors: c.Errors - p.Errors,
			Retries: c.Retries - p.Retries, Late: c.Late - p.Late, Skipped: c.Skipped - p.Skipped}
	}
	m.win, m.winNow = m.winNow, m.win
	m.all.Reset()
	for i := range m.tick.Lat {
		m.all.Merge(m.tick.Lat[i])
	}
	var all, in metrics.Second
	tc := m.tick.Total()
	all.Txns, all.Errors = tc.Count, tc.Errors
	for _, c := range m.measured {
		in.Txns += c.Count
		in.Errors += c.Errors
	}
	if e.Headline >= 0 {
		all.Headline, in.Headline = m.tick.Counts[e.Headline].Count, m.measured[e.Headline].Count
	}
	at, inWindow := now, m.out.WindowStarted
	sec := all
	switch {
	case inWindow && m.lastTick < e.start():
		at, inWindow = e.start(), false
		sec = minus(all, in)
		m.carry = in
		m.before = len(m.out.Series)
	case inWindow:
		sec = plus(in, m.carry)
		m.carry = metrics.Second{}
		if last {
			at = time.Duration(e.end.Load())
		} else if m.before >= 0 {
			// A transaction that ended before the window's start but was recorded after its tick.
			b := &m.out.Series[m.before]
			*b = plus(*b, minus(all, in))
		}
	}
	sec.T, sec.Window = math.Round(at.Seconds()*1000)/1000, inWindow
	m.lastTick = at
	sec.P95ms = float64(m.all.ValueAtQuantile(95)) / 1000
	if e.Headline >= 0 {
		sec.HeadlineP95ms = float64(m.tick.Lat[e.Headline].ValueAtQuantile(95)) / 1000
	}
	fails := e.connFails.Load()
	sec.ConnectFailures, m.fails = fails-m.fails, fails
	sec.NoServiceS = math.Round(e.withoutService(prev, at).Seconds()*1000) / 1000
	if e.Observe != nil {
		e.Observe.Tick(&sec)
	}
	m.progSet.Merge(m.tick)
	for m.next <= now {
		m.next += time.Second
	}
	m.txns += all.Txns
	m.errors += all.Errors
	// The time series is the first consumer of the second, then the bus's subscribers.
	m.out.Series = append(m.out.Series, sec)
	t := event.Tick{Second: sec, Phase: m.phase(last), Elapsed: now, Txns: m.txns, Errors: m.errors,
		VUs: e.Cfg.VUs, Types: e.Types, Set: m.tick, Measured: m.measured}
	if t.Phase == "window" {
		t.InWindow = now - e.start()
	}
	e.Bus.Publish(m.snapCtx, t)
	m.tick.Reset()
	if e.Cfg.UntilSteady > 0 && e.Cfg.StartAt.IsZero() && !m.out.WindowStarted && !last {
		m.untilSteady(now, sec, (at - prev).Seconds(), prev.Seconds())
	}
}

// untilSteady judges, once a second in a rampup until steady, whether the headline's throughput
// (the series the steady-state line judges after the run) has settled, by steady.SettledSoFar
// over the rampup's seconds so far; once it has, and the rampup has lasted Config.Rampup, the
// window starts at the next tick, unless the bound comes first.
func (m *monitor) untilSteady(now time.Duration, sec metrics.Second, dt, from float64) {
	e, out := m.e, m.out
	if out.UntilSteady == nil {
		out.UntilSteady = &UntilSteady{}
	}
	if out.UntilSteady.Settled {
		return
	}
	if dt >= results.MinPointSeconds {
		v := sec.Txns
		if e.Headline >= 0 {
			v = sec.Headline
		}
		m.rate = append(m.rate, float64(v)/dt)
		m.from = append(m.from, from)
	}
	end, ok := steady.SettledSoFar(m.rate)
	if !ok || now < e.Cfg.Rampup || m.next >= e.start() {
		return
	}
	out.UntilSteady = &UntilSteady{Settled: true, Judged: now, WarmupEnd: time.Duration(m.from[end] * float64(time.Second))}
	e.setStart(m.next, out)
}

// lastSecond adds to the window's last second the window's transactions recorded after the
// monitor's last tick read them (counted): a VU that ended one just before the window's end
// records it a moment later, after the tick on a busy host. So the series' window seconds count
// exactly the window's transactions; the tick's subscribers saw the second without them.
func (e *Engine) lastSecond(out *Outcome, counted []metrics.Counts) {
	n := len(out.Series)
	if !out.WindowStarted || n == 0 || !out.Series[n-1].Window {
		return
	}
	s := &out.Series[n-1]
	for i, c := range out.Window.Counts {
		s.Txns += c.Count - counted[i].Count
		s.Errors += c.Errors - counted[i].Errors
		if i == e.Headline {
			s.Headline += c.Count - counted[i].Count
		}
	}
}

// plus and minus add and subtract the counts of two seconds (transactions, headline, errors).
func plus(a, b metrics.Second) metrics.Second {
	a.Txns, a.Headline, a.Errors = a.Txns+b.Txns, a.Headline+b.Headline, a.Errors+b.Errors
	return a
}

func minus(a, b metrics.Second) metrics.Second {
	a.Txns, a.Headline, a.Errors = a.Txns-b.Txns, a.Headline-b.Headline, a.Errors-b.Errors
	return a
}

// sample publishes a progress sample when one is due: the interval's rates (the server's
// counters where it has them, else the client's), latencies, errors and the observers' part.
func (m *monitor) sample(now time.Duration, last bool) {
	e, out := m.e, m.out
	// The last sample is left out when there is nothing to report: the window never started
	// (Ctrl-C in the rampup), or the interval since the previous one is too short for a rate.
	worthIt := !last || out.WindowStarted && now-m.lastProgAt >= 250*time.Millisecond
	if e.Bus == nil || e.Cfg.Progress <= 0 || !(now >= m.nextProg-50*time.Millisecond || last) || !worthIt {
		return
	}
	for m.nextProg <= now+50*time.Millisecond {
		m.nextProg += e.Cfg.Progress
	}
	set := m.progSet
	p := event.Progress{Elapsed: now, Phase: m.phase(last), Interval: now - m.lastProgAt, Headline: e.HeadlineName, PerMinute: e.Headline >= 0}
	if p.Phase == "window" {
		p.InWindow = now - e.start()
	}
	if !last {
		// One attempt: a database that does not answer (an outage) must not stop the clock; the
		// line then shows the client's rates.
		s := e.snapshotTries(m.snapCtx, m.mon, 1)
		own := e.ownNow() // this reading's statement included
		if s.OK && m.lastProg.OK && !s.NoCounter && !m.lastProg.NoCounter && e.Target.TxnCounterSQL() != "" && s.Counter >= m.lastProg.Counter {
			d := s.At.Sub(m.lastProg.At).Minutes()
			p.HeadlinePM = float64(s.Headline-m.lastProg.Headline) / d
			p.TxnPM = float64(max(s.Counter-m.lastProg.Counter-(own-m.lastOwn), 0)) / d
			p.Source = "server"
		} else {
			e.clientRates(&p, set, p.Interval)
		}
		m.lastProg, m.lastOwn = s, own
	} else {
		e.clientRates(&p, set, p.Interval)
	}
	for i := range set.Lat {
		p.P95 = append(p.P95, float64(set.Lat[i].ValueAtQuantile(95))/1000)
	}
	t := set.Total()
	p.Errors, p.Retries = t.Errors, t.Retries
	p.Count, p.Late, p.Skipped = t.Count, t.Late, t.Skipped
	if e.Main < len(set.Lat) && set.Lat[e.Main].TotalCount() > 0 {
		h := set.Lat[e.Main]
		p.MeanMs, p.StdDevMs = h.Mean()/1000, h.StdDev()/1000
		if set.Svc != nil {
			p.LagMs = p.MeanMs - set.Svc[e.Main].Mean()/1000
		}
	}
	if e.Observe != nil {
		p.Waits = e.Observe.Interval()
		if w, ok := e.Observe.(TopWaiter); ok {
			p.TopWaits = w.TopWaits()
		}
	}
	if e.Word != nil {
		p.Line = e.Word(&p)
	}
	e.Bus.Publish(m.snapCtx, p)
	set.Reset()
	m.lastProgAt = now
}

func (e *Engine) clientRates(p *event.Progress, s *metrics.Set, interval time.Duration) {
	m := interval.Minutes()
	if m <= 0 {
		return
	}
	t := s.Total()
	p.TxnPM = float64(t.Count) / m
	if e.Headline >= 0 {
		c := s.Counts[e.Headline]
		p.HeadlinePM = float64(c.Count-c.Rollbacks) / m
	}
	p.Source = "client"
}

type vuState struct {
	id    int
	vu    workload.VU
	conn  target.Conn
	shard *metrics.Shard
	rng   *rand.Rand
	stmts *stmtSink
	poke  chan struct{} // an edge asks the VU to meet it (Engine.meet)
	// prepared are the Lender's statements prepared on conn, when the VU lends it.
	prepared map[string]bool
	// busy is the start of the transaction under way (ns since t0) plus one, 0 between
	// transactions. held is how many transactions the VU completed in the 1 to 2 s up to its last
	// completion: a session publishes its counts at the end of a transaction once its last
	// publication is a second old (target.LaggingCounter), so it can hold back no more than that.
	busy, held atomic.Int64
	// The VU's completions per quarter second of the run's clock: q is the current quarter,
	// quarters[q%5] its count, the others the four before it.
	q        int64
	quarters [5]int64
	// due is when the VU's next transaction was due on the run's clock: the last one's end
	// (closed loop), plus the keying or thinking time asked (paced), or its intended start (open
	// loop); -1 when not known (the first, after an error or a reconnect). lag sums start - due
	// over the transactions started in the window; its count and largest (IssueLag). Only the
	// VU's goroutine touches them until it has ended.
	due time.Duration
	lag IssueLag
	// ended is when the VU said its transaction ended (workload.WindowSink), 0 when it did not:
	// the engine counts the transaction by that time too, so that both count the same ones.
	ended time.Duration
}

// IssueLag is how late the VUs issued their transactions, over those started in the window: the
// time from when each was due (the previous one's end in a closed loop, that plus the keying or
// thinking time asked when paced, its intended start in an open loop) to its start. In a closed
// loop it is the client's own time between transactions (choosing the next, reading the clock,
// waiting for a CPU); a client short of CPU shows here first. A VU's first transaction, and one
// after an error or a reconnect, are not counted.
type IssueLag struct {
	N        int64
	Sum, Max time.Duration
}

func (l *IssueLag) add(d time.Duration) {
	l.N++
	l.Sum += d
	l.Max = max(l.Max, d)
}

// completed counts a transaction that ended at end, and returns how many the VU completed from
// the start of the quarter second a second before end's up to end: at least the last second.
func (v *vuState) completed(end time.Duration) int64 {
	q := int64(end / (250 * time.Millisecond))
	for x := v.q + 1; x <= q && x <= v.q+5; x++ {
		v.quarters[x%5] = 0
	}
	v.q = q
	v.quarters[q%5]++
	var n int64
	for _, c := range v.quarters {
		n += c
	}
	return n
}

// stmtSink is one VU's workload.StatementSink: its own set, so recording takes no lock. A
// statement counts when it ends inside the window, by the same clock and rule as transactions.
type stmtSink struct {
	e   *Engine
	v   *vuState
	set *metrics.StmtSet
}

func (s *stmtSink) Now() time.Duration { return time.Since(s.e.t0) }

// InWindow says whether a statement that ended at end counts.
func (s *stmtSink) InWindow(end time.Duration) bool {
	return end >= s.e.start() && end < time.Duration(s.e.end.Load())
}

// Ended implements workload.WindowSink.
func (s *stmtSink) Ended(end time.Duration) bool {
	s.v.ended = end
	return s.InWindow(end)
}

func (s *stmtSink) Statement(i int, start, end time.Duration) {
	if s.InWindow(end) {
		s.set.Record(i, int64((end-start)/time.Microsecond))
	}
}

func (e *Engine) stopped() bool {
	select {
	case <-e.stop:
		return true
	default:
		return false
	}
}

// sleep waits d or until the run stops; it reports whether the run goes on. A VU asleep is
// between transactions: it meets a window edge at once.
func (e *Engine) sleep(ctx context.Context, v *vuState, d time.Duration) bool {
	if d <= 0 {
		return !e.stopped()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-e.stop:
			return false
		case <-t.C:
			return true
		case <-v.poke:
			e.meet(ctx, v)
		}
	}
}

func (e *Engine) loop(ctx context.Context, v *vuState) {
	cfg := e.Cfg
	pacer, _ := v.vu.(workload.Pacer)
	cur := e.load.Load()
	perVU := cur.perVU
	var nextArrival time.Duration
	if cfg.Rate > 0 && v.id < cur.active {
		// Start the schedules at random phases so VUs do not arrive in lockstep.
		nextArrival = time.Duration(v.rng.ExpFloat64() / perVU * float64(time.Second))
	}
	var s metrics.Sample
	for !e.stopped() {
		// One atomic load a transaction tells a change of the load (Config.Load); without a
		// schedule it never changes, and every VU runs.
		if ls := e.load.Load(); ls != cur || v.id >= ls.active {
			idle := v.id >= cur.active // not running in the state it last knew
			if v.id >= ls.active {
				var ok bool
				if ls, ok = e.park(ctx, v, ls); !ok {
					return
				}
				idle = true
			}
			if cfg.Rate > 0 {
				// Arrivals are memoryless: from the change on they come at the new rate, the
				// one drawn past it drawn again; a VU behind its schedule keeps the arrival it
				// is due, and one that was parked starts at the change.
				perVU = ls.perVU
				if idle || nextArrival > ls.at {
					nextArrival = ls.at + time.Duration(v.rng.ExpFloat64()/perVU*float64(time.Second))
				}
			}
			cur = ls
		}
		select {
		case <-v.poke:
			e.meet(ctx, v)
		default:
		}
		if v.conn == nil && !e.reconnect(ctx, v) {
			return
		}
		typ := v.vu.Next()
		var intended time.Duration
		if cfg.Rate > 0 {
			intended = nextArrival
			nextArrival += time.Duration(v.rng.ExpFloat64() / perVU * float64(time.Second))
			if !e.sleep(ctx, v, intended-time.Since(e.t0)) {
				return
			}
		} else if cfg.Pace && pacer != nil {
			k := pacer.Keying(typ)
			if v.due >= 0 {
				v.due += k
			}
			if !e.sleep(ctx, v, k) {
				return
			}
		}
		start := time.Since(e.t0)
		if cfg.Rate == 0 {
			intended = start
		} else if cfg.LatencyLimit > 0 && start-intended > cfg.LatencyLimit {
			// pgbench -R -L: a transaction already later than the limit is not sent at all, so
			// that a server that fell behind can catch up; it is counted as skipped.
			v.shard.Record(&metrics.Sample{Type: typ, Skipped: true, InWindow: intended >= e.start() && intended < time.Duration(e.end.Load())})
			continue
		}
		if cfg.Rate > 0 {
			v.due = intended
		}
		v.busy.Store(int64(start) + 1)
		rolledBack, retries, class, err := e.attempt(ctx, v.vu)
		end := time.Since(e.t0)
		if v.ended > 0 {
			end, v.ended = v.ended, 0
		}
		v.busy.Store(0)
		v.held.Store(v.completed(end))
		ws, we := e.start(), time.Duration(e.end.Load())
		if v.due >= 0 && start >= ws && start < we {
			v.lag.add(max(start-v.due, 0))
		}
		s = metrics.Sample{Type: typ, LatencyUs: int64((end - intended) / time.Microsecond),
			ServiceUs: int64((end - start) / time.Microsecond), Retries: retries, RolledBack: rolledBack,
			InWindow: end >= ws && end < we, Late: cfg.LatencyLimit > 0 && end-intended > cfg.LatencyLimit}
		if err != nil {
			s.Failed = true
			s.ErrKey = errKey(class, err, retries)
		}
		v.shard.Record(&s)
		v.due = end
		e.service(class, err, end)
		if end >= we && start < we {
			e.recordAfter(&s)
		}
		if err != nil {
			v.due = -1
			if class == target.ErrConnection {
				v.conn.Close()
				v.conn = nil
				continue
			}
			// A failing statement must not turn the VU into a busy loop.
			if !e.sleep(ctx, v, time.Millisecond) {
				return
			}
		}
		if cfg.Rate == 0 && cfg.Pace && pacer != nil {
			th := pacer.Think(typ)
			if v.due >= 0 {
				v.due += th
			}
			if !e.sleep(ctx, v, th) {
				return
			}
		}
	}
}

// attempt executes the picked transaction, again with the same inputs while it fails with a
// retryable error and the run allows retries; a rollback the server chose counts as the
// workload's own. class is the last error's (ErrFatal when none).
func (e *Engine) attempt(ctx context.Context, vu workload.VU) (rolledBack bool, retries int64, class target.ErrClass, err error) {
	class = target.ErrFatal
	for {
		rolledBack, err = vu.Do(ctx)
		if err == nil {
			return rolledBack, retries, class, nil
		}
		class = e.Target.Classify(err)
		if class == target.ErrRollback {
			return true, retries, class, nil
		}
		if class != target.ErrRetryable || retries >= int64(e.Cfg.MaxRetries) || e.stopped() {
			return rolledBack, retries, class, err
		}
		retries++
	}
}

// service notes what a transaction's end at says of the database: a statement that failed
// for its connection begins an outage (unless one is under way); any other answer, an error
// included, ends it.
func (e *Engine) service(class target.ErrClass, err error, at time.Duration) {
	if err != nil && class == target.ErrConnection {
		e.lostService(at)
		return
	}
	if e.lost.Load() != 0 {
		e.served(at)
	}
}

// lostService begins an outage at at, unless one is under way.
func (e *Engine) lostService(at time.Duration) { e.lost.CompareAndSwap(0, int64(at)+1) }

// served ends the outage under way, if any, at at: the database answered.
func (e *Engine) served(at time.Duration) {
	l := e.lost.Load()
	if l == 0 || !e.lost.CompareAndSwap(l, 0) {
		return
	}
	from := time.Duration(l - 1)
	e.spanMu.Lock()
	e.spans = append(e.spans, Span{From: from, To: max(at, from)})
	e.spanMu.Unlock()
}

// outages are the run's stretches without service up to now, the one under way ending now.
func (e *Engine) outages(now time.Duration) []Span {
	e.spanMu.Lock()
	out := append([]Span(nil), e.spans...)
	e.spanMu.Unlock()
	if l := e.lost.Load(); l != 0 {
		out = append(out, Span{From: time.Duration(l - 1), To: max(now, time.Duration(l-1))})
	}
	return out
}

// withoutService is how much of [from, to) had no service.
func (e *Engine) withoutService(from, to time.Duration) time.Duration {
	var d time.Duration
	for _, s := range e.outages(to) {
		d += s.Overlap(from, to)
	}
	return d
}

// recordAfter keeps a transaction that was in flight at the window's end and completed after it:
// at most one per VU, so one lock will do.
func (e *Engine) recordAfter(s *metrics.Sample) {
	e.afterMu.Lock()
	if e.after != nil {
		e.after.Add(s)
	}
	e.afterMu.Unlock()
}

func errKey(class target.ErrClass, err error, retries int64) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 120 {
		msg = msg[:120]
	}
	if class == target.ErrRetryable {
		return fmt.Sprintf("retryable, gave up after %d retries: %s", retries, msg)
	}
	return class.String() + ": " + msg
}

// reconnect replaces a lost connection, backing off from 100 ms to a second, until it works or
// the run stops. Each failed attempt is counted, and is no service; a connection opened is the
// database's answer, which the backoff can see up to a second late.
func (e *Engine) reconnect(ctx context.Context, v *vuState) bool {
	backoff := 100 * time.Millisecond
	for !e.stopped() {
		c, err := e.Target.Conn(ctx)
		if err == nil {
			if err = v.vu.Bind(ctx, c); err == nil {
				v.conn, v.prepared = c, nil
				e.reconnects.Add(1)
				e.served(time.Since(e.t0))
				return true
			}
			c.Close()
		}
		e.connFails.Add(1)
		e.lostService(time.Since(e.t0))
		if !e.sleep(ctx, v, backoff) {
			return false
		}
		backoff = min(backoff*2, time.Second)
	}
	return false
}
