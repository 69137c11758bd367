package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/observe"
	"github.com/cairn-bench/cairn/internal/results"
	"github.com/cairn-bench/cairn/internal/workload"
)

// tests runs a workload's own tests (workload.Tester: TPC-H's power and throughput tests) the
// way once runs the engine: the observers start before them and close after, their measured
// window is the tests' span, a tick a second tells what completed, each timing is told as it
// ends (event.QueryDone), and the document is built from the timings; the workload adds only its
// own figures. begun: tell bus what runs first.
func (se *Session) tests(ctx context.Context, tr workload.Tester, bus *event.Bus, begun bool) (*results.Document, error) {
	s := se.Spec
	text := textWriter(ctx, bus, false)
	ts, err := tr.Tests(ctx, se.T, s.Options, s.Seed, text)
	text.Flush()
	if ts == nil || err != nil {
		return nil, err
	}
	if begun {
		if err := bus.Publish(ctx, event.Begun{What: results.KindRun, Line: ts.Line}); err != nil {
			return nil, err
		}
	}
	targetVersion, _ := se.T.Version(ctx)
	var settings map[string]string
	if c, err := se.T.Conn(ctx); err == nil {
		settings, _ = se.T.Settings(ctx, c)
		c.Close()
	}
	env := observe.Env{Target: se.T, Observation: s.Observation, Binding: s.Binding}
	if bus != nil {
		env.Note = func(line string) { bus.Publish(ctx, event.Note{Line: line}) }
	}
	watch, err := observe.Start(ctx, env)
	if err != nil {
		return nil, err
	}
	defer watch.Close(ctx) // on every path; the explicit Close below reports its error
	m := newTestMonitor(ts, watch, bus, s.Engine.Engine.Progress)
	cpu0 := metrics.ProcessCPU()
	started := time.Now()
	watch.Window(true)
	bus.Publish(ctx, event.Window{Start: true})
	go m.run(ctx)
	res, runErr := ts.Run(ctx, func(who string, tm results.Timing) {
		m.done(tm)
		bus.Publish(ctx, event.QueryDone{Who: who, Timing: tm})
	})
	m.stop()
	ended := time.Now()
	cpu := metrics.ProcessCPU() - cpu0
	watch.Window(false)
	bus.Publish(ctx, event.Window{Start: false})
	restoreErr := watch.Close(ctx)
	if res == nil {
		return nil, errors.Join(runErr, restoreErr)
	}
	d := fromTimings(ts, res, started, ended)
	d.Cairn = results.ThisCairn(se.Version)
	d.Target = results.Target{Kind: se.T.Kind(), Name: se.T.Name(), Version: targetVersion, Address: se.T.Address(),
		Database: se.T.Database(), Settings: settings}
	d.Seed = s.Seed
	d.Series = m.series
	d.Client.CPUSeconds = cpu.Seconds()
	d.Client.Cores = runtime.NumCPU()
	d.Interrupted = res.Interrupted || ctx.Err() != nil
	if se.T.Dialect().Embedded {
		d.Notes = append(d.Notes, "SQLite runs inside cairn: client CPU includes the database's own work")
	}
	watch.Fill(d)
	if res.Finish != nil {
		res.Finish(d)
	}
	d.Workload = s.Workload
	d.Config = s.Config()
	if d.Interrupted {
		d.MarkWindow("interrupted")
	}
	if restoreErr != nil {
		return d, fmt.Errorf("the run was measured, but what cairn changed on the server was not all restored ('cairn restore' undoes the rest): %w", errors.Join(runErr, restoreErr))
	}
	return d, runErr
}

// fromTimings is the common part of a tests' document: each timed query is a "transaction type"
// (its count how often it ran without error, its latency the histogram of its times), every
// timing kept as it is; the window is the tests' span, their own time its seconds.
func fromTimings(ts *workload.Tests, res *workload.Tested, started, ended time.Time) *results.Document {
	d := &results.Document{Format: results.FormatVersion, Kind: results.KindRun, StartedAt: started.UTC(),
		VU: ts.VUs, Mode: ts.Mode, MainTxn: ts.Main,
		Window: results.Window{Seconds: res.Seconds, ClientSeconds: res.Seconds, Start: started.UTC(), End: ended.UTC()},
		Txns:   map[string]*results.Txn{}, Errors: map[string]int64{}, Histograms: map[string]string{},
		Timings: append([]results.Timing(nil), res.Timings...)}
	hists := map[string]*hdrhistogram.Histogram{}
	for _, tm := range res.Timings {
		tx := d.Txns[tm.Name]
		if tx == nil {
			tx = &results.Txn{}
			d.Txns[tm.Name] = tx
			hists[tm.Name] = hdrhistogram.New(1, 24*3600*1_000_000, 3)
		}
		if tm.Error != "" {
			tx.Errors++
			d.Errors["query"]++
			continue
		}
		tx.Count++
		_ = hists[tm.Name].RecordValue(max(int64(tm.Seconds*1e6), 1))
	}
	for _, name := range ts.Order {
		if tx := d.Txns[name]; tx != nil {
			tx.LatencyMs = metrics.Summarize(hists[name])
			d.TxnOrder = append(d.TxnOrder, name)
		}
	}
	return d
}

// testMonitor ticks once a second while a workload's tests run: the second's completed and
// failed timings, with the observers' parts, go to the series and to the bus; every progress
// interval the observers end an interval (the waits' top events), told as a Progress event with
// no line of its own (the timings' lines are the tests' progress).
type testMonitor struct {
	ts       *workload.Tests
	watch    *observe.Watch
	bus      *event.Bus
	progress time.Duration
	index    map[string]int

	mu   sync.Mutex
	sec  *metrics.Set // the second's timings, by ts.Order
	quit chan struct{}
	over chan struct{}

	t0           time.Time
	series       []metrics.Second
	txns, errors int64
}

func newTestMonitor(ts *workload.Tests, watch *observe.Watch, bus *event.Bus, progress time.Duration) *testMonitor {
	m := &testMonitor{ts: ts, watch: watch, bus: bus, progress: progress, index: map[string]int{},
		sec: metrics.NewSet(len(ts.Order), false), quit: make(chan struct{}), over: make(chan struct{}), t0: time.Now()}
	for i, n := range ts.Order {
		m.index[n] = i
	}
	return m
}

// done counts a timing in the second it ended in.
func (m *testMonitor) done(tm results.Timing) {
	i, ok := m.index[tm.Name]
	if !ok {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if tm.Error != "" {
		m.sec.Counts[i].Errors++
		return
	}
	m.sec.Counts[i].Count++
	us := min(max(int64(tm.Seconds*1e6), metrics.MinMicros), metrics.MaxMicros)
	_ = m.sec.Lat[i].RecordValue(us)
}

func (m *testMonitor) run(ctx context.Context) {
	defer close(m.over)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	nextProgress := m.progress
	for {
		select {
		case <-m.quit:
			m.second(ctx, true)
			return
		case <-tick.C:
			m.second(ctx, false)
			if el := time.Since(m.t0); m.progress > 0 && el >= nextProgress {
				for nextProgress <= el {
					nextProgress += m.progress
				}
				m.interval(ctx, el)
			}
		}
	}
}

// stop ends the ticks with a last one (phase "done") and waits for it.
func (m *testMonitor) stop() {
	close(m.quit)
	<-m.over
}

func (m *testMonitor) second(ctx context.Context, last bool) {
	now := time.Since(m.t0)
	m.mu.Lock()
	tc := m.sec.Total()
	var sec metrics.Second
	sec.Txns, sec.Errors = tc.Count, tc.Errors
	all := metrics.NewHist()
	for _, h := range m.sec.Lat {
		all.Merge(h)
	}
	if all.TotalCount() > 0 {
		sec.P95ms = float64(all.ValueAtQuantile(95)) / 1000
	}
	sec.T, sec.Window = math.Round(now.Seconds()*1000)/1000, true
	m.watch.Tick(&sec)
	m.series = append(m.series, sec)
	m.txns += sec.Txns
	m.errors += sec.Errors
	phase := "window"
	if last {
		phase = "done"
	}
	t := event.Tick{Second: sec, Phase: phase, Elapsed: now, InWindow: now, Txns: m.txns, Errors: m.errors,
		VUs: m.ts.VUs, Types: m.ts.Order, Set: m.sec, Measured: append([]metrics.Counts(nil), m.sec.Counts...)}
	m.bus.Publish(ctx, t)
	m.sec.Reset()
	m.mu.Unlock()
}

// interval ends a progress interval of the observers: the waits keep its top events, and the
// bus hears them (cairn serve's waits chart).
func (m *testMonitor) interval(ctx context.Context, el time.Duration) {
	waits := m.watch.Interval()
	m.bus.Publish(ctx, event.Progress{Elapsed: el, Phase: "window", InWindow: el, Waits: waits, TopWaits: m.watch.TopWaits()})
}
