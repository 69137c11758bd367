package run

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/event"
	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
)

// sleeper is a VU whose one transaction type runs SELECT 1 and then takes d.
type sleeper struct {
	c    target.Conn
	d    time.Duration
	fail int // fail with a retryable error this many times per transaction
	left int
}

func (s *sleeper) Bind(_ context.Context, c target.Conn) error { s.c = c; return nil }
func (s *sleeper) Next() int                                   { s.left = s.fail; return 0 }
func (s *sleeper) Do(ctx context.Context) (bool, error) {
	var one int
	if err := s.c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		return false, err
	}
	time.Sleep(s.d)
	if s.left > 0 {
		s.left--
		return false, errBusy
	}
	return false, nil
}

var errBusy = errors.New("database is locked") // SQLite's busy error text: retryable

func engine(t *testing.T, cfg Config, vu func() workload.VU) *Outcome {
	t.Helper()
	tg, err := target.Open(context.Background(), testutil.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	e := &Engine{Cfg: cfg, Target: tg, Types: []string{"t"}, Headline: -1,
		NewVU: func(int) (workload.VU, error) { return vu(), nil }}
	out, err := e.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestClosedLoopWindow(t *testing.T) {
	out := engine(t, Config{VUs: 2, Rampup: 500 * time.Millisecond, Duration: 2 * time.Second, Seed: 1},
		func() workload.VU { return &sleeper{d: 10 * time.Millisecond} })
	w := out.End.At.Sub(out.Start.At)
	if w < 1990*time.Millisecond || w > 2100*time.Millisecond {
		t.Errorf("window %v, want 2 s", w)
	}
	n := out.Window.Counts[0].Count
	// 2 VUs × 2 s / ~10 ms: about 400; the rampup's ~100 must not be in it.
	if n < 250 || n > 420 {
		t.Errorf("%d transactions in the window, want about 400 (rampup excluded)", n)
	}
	if p50 := metrics.Summarize(out.Window.Lat[0]).P50; p50 < 10 || p50 > 20 {
		t.Errorf("p50 %.2f ms, want about 10", p50)
	}
	if out.ClientCPU <= 0 {
		t.Error("client CPU not measured")
	}
}

func TestRetries(t *testing.T) {
	out := engine(t, Config{VUs: 1, Duration: time.Second, MaxRetries: 2, Seed: 1},
		func() workload.VU { return &sleeper{d: time.Millisecond, fail: 1} })
	c := out.Window.Counts[0]
	if c.Count == 0 || c.Retries != c.Count && c.Retries != c.Count+1 {
		t.Errorf("one retry per transaction expected: %+v", c)
	}
	out = engine(t, Config{VUs: 1, Duration: time.Second, MaxRetries: 2, Seed: 1},
		func() workload.VU { return &sleeper{d: time.Millisecond, fail: 5} })
	c = out.Window.Counts[0]
	if c.Count != 0 || c.Errors == 0 {
		t.Errorf("retries exhausted: want only errors, got %+v", c)
	}
}

// TestOpenLoopCoordinatedOmission: a VU that needs 20 ms per transaction is asked for 100/s. It
// falls further behind its schedule every transaction, so latency from the intended start grows far
// beyond the 20 ms service time; a closed-loop tool would report 20 ms. The bounds come from what
// the run counted, not from how fast the host ran it: a busy host makes each transaction longer,
// which only puts the VU further behind.
func TestOpenLoopCoordinatedOmission(t *testing.T) {
	const d, rate = 20 * time.Millisecond, 100
	out := engine(t, Config{VUs: 1, Duration: 2 * time.Second, Rate: rate, Seed: 1},
		func() workload.VU { return &sleeper{d: d} })
	lat := metrics.Summarize(out.Window.Lat[0])
	svc := metrics.Summarize(out.Window.Svc[0])
	n := out.Window.Counts[0].Count
	// The service time is the transaction's own: at least its 20 ms, and, one VU always behind
	// running them back to back, n of them fit in the window.
	if w := out.ClientWindow.Seconds() * 1000; svc.P50 < ms(d) || svc.Mean*float64(n) > w+svc.Max {
		t.Errorf("service p50 %.1f ms, mean %.1f ms over %d transactions in a %.0f ms window: want at least %v, the transactions' own time", svc.P50, svc.Mean, n, w, d)
	}
	// The k-th transaction could start only after the k before it had each taken 20 ms or more,
	// and was due k×10 ms into the window on average (arrivals are Poisson): its latency from the
	// intended start is about k×10 ms or more, so the median's about (n/2-1)×10 ms or more; half
	// of that allows for the seeded arrivals running late.
	if want := float64(n/2-1) * (ms(d) - 1000.0/rate) / 2; n < 10 || lat.P50 < want {
		t.Errorf("latency p50 %.1f ms from the intended start over %d transactions, want at least %.0f: far above the service time", lat.P50, n, want)
	}
	// Below capacity, latency and service time agree: each VU is due every 100 ms and is done in
	// a fraction of that, so no transaction waits for another; latency is the service time and
	// the host's delay in starting it, never a backlog.
	const vus, lowRate = 2, 20
	out = engine(t, Config{VUs: vus, Duration: 2 * time.Second, Rate: lowRate, Seed: 1},
		func() workload.VU { return &sleeper{d: 5 * time.Millisecond} })
	lat = metrics.Summarize(out.Window.Lat[0])
	svc = metrics.Summarize(out.Window.Svc[0])
	interval := 1000.0 * vus / lowRate // ms between one VU's transactions
	if lat.P50 > svc.P50+interval/2 {
		t.Errorf("latency p50 %.1f ms at %d/s for a %.1f ms transaction: a backlog", lat.P50, lowRate, svc.P50)
	}
	// The seeded Poisson schedule has about 40 transactions due in the window (25..60 holds a
	// Poisson count of mean 40 but for one seed in hundreds; this seed's is 34 or 35): the count
	// is the schedule's, and a busy host moves only those due within the longest latency of the
	// window's end out of it.
	if n := out.Window.Counts[0].Count; n < 25 || n > 60 {
		t.Errorf("%d transactions at %d/s over 2 s, want about 40", n, lowRate)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// bumper is a VU whose one transaction type adds one to a row of cairn_edge_test in autocommit:
// one transaction each, and the table's sum counts the committed ones.
type bumper struct{ c target.Conn }

func (b *bumper) Bind(_ context.Context, c target.Conn) error { b.c = c; return nil }
func (b *bumper) Next() int                                   { return 0 }
func (b *bumper) Do(ctx context.Context) (bool, error) {
	_, err := b.c.Exec(ctx, "UPDATE cairn_edge_test SET n = n + 1 WHERE id = 1")
	return false, err
}

// edgeTable makes cairn_edge_test on PostgreSQL (without autovacuum, whose transactions would
// count too) and returns its target. The session that made it publishes its counts, so that none
// reach the counter during the run.
func edgeTable(t *testing.T) target.Target {
	t.Helper()
	ctx := context.Background()
	tg, c := testutil.Open(t, testutil.PG(t))
	for _, q := range []string{"DROP TABLE IF EXISTS cairn_edge_test",
		"CREATE TABLE cairn_edge_test (id int PRIMARY KEY, n bigint NOT NULL) WITH (autovacuum_enabled = false)",
		"INSERT INTO cairn_edge_test VALUES (1, 0)"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { c.Exec(ctx, "DROP TABLE cairn_edge_test") })
	if !forcesFlush(t, tg) {
		return tg // before PostgreSQL 15: nothing to publish with
	}
	if _, err := c.Exec(ctx, "SELECT pg_stat_force_next_flush()"); err != nil {
		t.Fatal(err)
	}
	return tg
}

// forcesFlush says whether the server can make a session publish its counts (PostgreSQL 15 and
// later have pg_stat_force_next_flush).
func forcesFlush(t *testing.T, tg target.Target) bool {
	t.Helper()
	v, err := tg.Version(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return target.VersionAtLeast(v, "15")
}

// flushing skips a test of the edges' publication on a PostgreSQL older than 15, which has none:
// TestCounterOfOlderPostgreSQL tests those.
func flushing(t *testing.T, tg target.Target) {
	t.Helper()
	if !forcesFlush(t, tg) {
		v, _ := tg.Version(context.Background())
		t.Skipf("PostgreSQL %s cannot make a session publish its counts (pg_stat_force_next_flush is 15's): TestCounterOfOlderPostgreSQL tests the readings there", v)
	}
}

// TestCounterOfOlderPostgreSQL: before PostgreSQL 15 nothing makes a session publish its
// transaction counts, so each edge's reading may lag by up to a second of every VU's commits. The
// readings say by how much (docs/tpcc.md: TPM is then always approximate), and the count the
// table keeps lies within those bounds. On 15 and later the edges publish and the test skips.
func TestCounterOfOlderPostgreSQL(t *testing.T) {
	tg := edgeTable(t)
	if forcesFlush(t, tg) {
		v, _ := tg.Version(context.Background())
		t.Skipf("PostgreSQL %s publishes at the edges: TestServerCounterCoversTheWindow tests it", v)
	}
	out, err := edgeEngine(tg, Config{VUs: 2, Rampup: 500 * time.Millisecond, Duration: 3 * time.Second, Seed: 1}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	committed := out.End.Headline - out.Start.Headline
	counted := out.End.Counter - out.Start.Counter - out.OwnTxns
	if out.Start.Unflushed <= 0 || out.End.Unflushed <= 0 {
		t.Errorf("the readings claim no lag: start %+v, end %+v", out.Start, out.End)
	}
	if committed < 100 || committed < counted-out.Start.Unflushed || committed > counted+out.End.Unflushed {
		t.Errorf("%d transactions committed in the window, outside the server count's bounds %d-%d..%d+%d",
			committed, counted, out.Start.Unflushed, counted, out.End.Unflushed)
	}
	t.Logf("committed %d, the server counted %d (bounds -%d +%d)", committed, counted, out.Start.Unflushed, out.End.Unflushed)
}

func edgeEngine(tg target.Target, cfg Config) *Engine {
	return &Engine{Cfg: cfg, Target: tg, Types: []string{"bump"}, Headline: 0,
		HeadlineSQL: "(SELECT SUM(n) FROM cairn_edge_test)",
		NewVU:       func(int) (workload.VU, error) { return &bumper{}, nil }}
}

// autovacuum watches, from a connection to the server's postgres database (whose statements do
// not count in the test database's), for autovacuum workers in the test database, the one other
// kind of session whose transactions pg_stat_database counts there: a worker visits every
// database once per autovacuum_naptime, idle or not, and commits its own transactions in it.
// The function it returns stops the watch and says how many workers were seen.
func autovacuum(t *testing.T, db string) func() int {
	t.Helper()
	u, err := target.ParseURL(db)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Parsed.Path, "/")
	other := *u.Parsed
	other.Path = "/postgres"
	_, c := testutil.Open(t, other.String())
	ctx, cancel := context.WithCancel(context.Background())
	seen := map[int64]bool{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			rows, err := c.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE backend_type = 'autovacuum worker' AND datname = $1", name)
			if err != nil {
				return
			}
			for rows.Next() {
				var pid int64
				if rows.Scan(&pid) == nil {
					seen[pid] = true
				}
			}
			rows.Close()
			time.Sleep(2 * time.Millisecond)
		}
	}()
	return func() int {
		cancel()
		<-done
		return len(seen)
	}
}

// counted runs e until no autovacuum worker visited the test database during the run and no VU
// was stalled at an edge edges counts (at most three times): the exact checks
// below are of cairn's sessions, and a worker's transactions would count beside them; a VU the
// host did not schedule for an edge's whole EdgeWait is stalled there, and the reading then says
// only by how much it may be off, which is not the case under test.
func counted(t *testing.T, e func() *Engine, edges func(*Outcome) int) (*Outcome, error) {
	t.Helper()
	for try := 1; ; try++ {
		seen := autovacuum(t, testutil.PG(t))
		out, err := e().Run(context.Background())
		n := seen()
		if try == 3 || err != nil {
			return out, err
		}
		if n > 0 {
			t.Logf("%d autovacuum workers visited the database during the run: their transactions count in pg_stat_database; run again", n)
			continue
		}
		if s := edges(out); s > 0 {
			t.Logf("%d VUs were stalled at an edge the test does not stall them at (the host did not run them for %v): run again", s, EdgeWait)
			continue
		}
		return out, err
	}
}

// TestServerCounterCoversTheWindow: PostgreSQL's sessions publish their commit counts to
// pg_stat_database at most once a second, so a plain reading at each edge misses up to a second
// of commits. The engine has every VU publish at the edges: the counter's change, less cairn's own
// statements, is then exactly the committed updates the table's sum counts.
func TestServerCounterCoversTheWindow(t *testing.T) {
	tg := edgeTable(t)
	flushing(t, tg)
	out, err := counted(t, func() *Engine {
		return edgeEngine(tg, Config{VUs: 2, Rampup: 500 * time.Millisecond, Duration: 2 * time.Second, Seed: 1})
	}, func(o *Outcome) int { return o.Start.Stalled + o.End.Stalled })
	if err != nil {
		t.Fatal(err)
	}
	committed := out.End.Headline - out.Start.Headline
	counted := out.End.Counter - out.Start.Counter - out.OwnTxns
	if committed < 100 || counted != committed {
		t.Errorf("the server counted %d transactions in the window (less %d of cairn's own), %d were committed", counted, out.OwnTxns, committed)
	}
	if out.Start.Unflushed != 0 || out.End.Unflushed != 0 || out.Start.Stalled+out.End.Stalled != 0 {
		t.Errorf("no VU stalled, yet the readings are bounded: start %+v, end %+v", out.Start, out.End)
	}
}

// TestStalledWindowEnd: a second session holds the row both VUs update from a second into the
// window (on the run's own clock: its second tick in the window) for four seconds, past the
// window's end. The VUs stall with up to a second of commits held back from pg_stat_database:
// the reading says by how much at most, and the true count lies within it. The end edge does
// not wait for VUs stalled since long before it. The two transactions in flight at the window's
// end are counted, with their age (from when the lock was asked for and had been taken to the
// window's end, measured here), and their latency, the lock's hold or more, is kept apart when
// they complete after the window.
func TestStalledWindowEnd(t *testing.T) {
	tg := edgeTable(t)
	flushing(t, tg)
	const hold = 4 * time.Second
	var released <-chan error
	var relErr error
	var asked, taken time.Time
	var mu sync.Mutex
	out, err := counted(t, func() *Engine {
		mu.Lock()
		asked, taken = time.Time{}, time.Time{}
		mu.Unlock()
		e := edgeEngine(tg, Config{VUs: 2, Rampup: 500 * time.Millisecond, Duration: 4 * time.Second, Seed: 1})
		var once sync.Once
		e.Bus = event.New(ticks(func(tk event.Tick) {
			if tk.Phase == "window" && tk.InWindow >= time.Second {
				once.Do(func() {
					go func() {
						mu.Lock()
						defer mu.Unlock()
						asked = time.Now()
						released = testutil.HoldLock(t, tg, "UPDATE cairn_edge_test SET n = n WHERE id = 1", hold)
						taken = time.Now()
					}()
				})
			}
		}))
		return e
	}, func(o *Outcome) int {
		mu.Lock()
		defer mu.Unlock()
		if released != nil { // the next run must not meet this one's lock
			relErr, released = <-released, nil
		}
		// The case under test needs the lock taken well before the window's end; a host that
		// delayed the test's own session past that did not make it: run again.
		if !taken.IsZero() && o.WindowStartsAt.Add(o.PlannedWindow).Sub(taken) < 2*EdgeWait {
			t.Logf("the lock was taken only %v before the window's planned end: run again", o.WindowStartsAt.Add(o.PlannedWindow).Sub(taken))
			return 1
		}
		return o.Start.Stalled
	})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if released != nil {
		relErr = <-released
	}
	if taken.IsZero() {
		t.Fatal("the lock was never taken")
	}
	if err := relErr; err != nil {
		t.Fatal(err)
	}
	plannedEnd := out.WindowStartsAt.Add(out.PlannedWindow)
	if stalledFor := plannedEnd.Sub(taken); stalledFor < 2*EdgeWait {
		t.Fatalf("the lock was taken only %v before the window's planned end: the VUs must be stalled well over %v there", stalledFor, EdgeWait)
	}
	if out.End.Stalled != 2 || out.End.Unflushed <= 0 {
		t.Errorf("both VUs stalled at the window's end: got %d stalled, %d transactions held back at most", out.End.Stalled, out.End.Unflushed)
	}
	committed := out.End.Headline - out.Start.Headline
	counted := out.End.Counter - out.Start.Counter - out.OwnTxns
	if committed < 100 || committed < counted-out.Start.Unflushed || committed > counted+out.End.Unflushed {
		t.Errorf("%d transactions committed in the window, outside the server count's bounds %d-%d..%d+%d",
			committed, counted, out.Start.Unflushed, counted, out.End.Unflushed)
	}
	// Waiting for the stalled VUs would hold the end edge for EdgeWait; not waiting, it takes
	// only the reading's own time.
	if late := out.End.At.Sub(plannedEnd); late >= EdgeWait {
		t.Errorf("the end reading came %v after the planned end: the end edge waited for VUs stalled long before it", late)
	}
	// The oldest in flight started after the lock was asked for (less the client's delay before
	// its statement reached the server) and no later than the lock was taken (plus its delay
	// between two transactions): both delays are bounded by the longest transaction the window
	// measured. Its age is taken when the window's end is seen, from the planned end to the
	// reading.
	slack := time.Duration(metrics.Summarize(out.Window.Lat[0]).Max*float64(time.Millisecond)) + 10*time.Millisecond
	lo, hi := plannedEnd.Sub(taken)-slack, out.End.At.Sub(asked)+slack
	f := out.InFlight
	if f.AtEnd != 2 || f.Oldest < lo || f.Oldest > hi || f.Unfinished != 0 {
		t.Errorf("in flight at the window's end: %+v, want 2, the oldest %v..%v, none unfinished", f, lo, hi)
	}
	// They completed once the lock was released, hold after it was taken: each ran at least
	// hold, less the delay before it started.
	a := out.After.Counts[0]
	if lat := metrics.Summarize(out.After.Lat[0]); a.Count != 2 || time.Duration(lat.Max*float64(time.Millisecond)) < hold-slack {
		t.Errorf("completed after the window: %+v, latency %+v; want both stalled transactions, about %v", a, lat, hold)
	}
	// No transaction that completed in the window had stalled: each took far less than the
	// stall had lasted by the window's end.
	if max := metrics.Summarize(out.Window.Lat[0]).Max; time.Duration(max*float64(time.Millisecond)) > plannedEnd.Sub(taken)/2 {
		t.Errorf("max latency in the window %.1f ms: a transaction completed in it after a stall", max)
	}
}

// TestTickSubscribers: every subscriber gets every second the series keeps, at whole seconds and
// at the window's edges (SQLite's rampup of half a second puts one between two; PostgreSQL's of
// a second starts the window on one). The series' window
// seconds span the window exactly and count exactly its transactions, headline transactions and
// errors: the seconds are cut at the window's edges by the window's own rule (a transaction ends
// inside it), so what ended before its start, or after its end while in flight, is outside.
func TestTickSubscribers(t *testing.T) {
	check := func(t *testing.T, e *Engine) {
		var ticks []event.Tick
		var setTxns []int64 // each tick's per-type set, counted during the call (it is reused)
		var measured metrics.Counts
		var samples []event.Progress
		e.Bus = event.New(event.Func(func(_ context.Context, ev event.Event) error {
			switch ev := ev.(type) {
			case event.Tick:
				ticks = append(ticks, ev)
				setTxns = append(setTxns, ev.Set.Total().Count)
				for _, c := range ev.Measured {
					measured.Add(c)
				}
			case event.Progress:
				samples = append(samples, ev)
			}
			return nil
		}))
		out, err := e.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(ticks) < 3 || len(ticks) != len(out.Series) {
			t.Fatalf("%d ticks received, %d seconds in the series (want the same, at least 3)", len(ticks), len(out.Series))
		}
		ws, we := e.Cfg.Rampup.Seconds(), (e.Cfg.Rampup + out.ClientWindow).Seconds()
		var txns, inWindow, headline, errs, before int64
		var from, to float64
		prev, seen := 0.0, false
		for i, tk := range ticks {
			s := out.Series[i]
			if tk.Second.T != s.T || tk.Second.Window != s.Window {
				t.Errorf("tick %d is second %+v, the series' is %+v", i, tk.Second, s)
			}
			txns += setTxns[i]
			if tk.Txns != txns || tk.VUs != e.Cfg.VUs || len(tk.Types) != len(e.Types) {
				t.Errorf("tick %d counts %d transactions since the start, its sets add up to %d; %d VUs, types %v", i, tk.Txns, txns, tk.VUs, tk.Types)
			}
			if late := tk.Elapsed % time.Second; i < len(ticks)-1 && s.T != ws && (tk.Elapsed < time.Second || late > 200*time.Millisecond) {
				t.Errorf("tick %d at %v, want a whole second or the window's start", i, tk.Elapsed)
			}
			switch {
			case s.Window:
				if !seen {
					from, seen = prev, true
				}
				to = s.T
				inWindow += s.Txns
				headline += s.Headline
				errs += s.Errors
			case s.T <= ws:
				before += s.Txns
			default:
				t.Errorf("second %d (%+v) after the window's start is not in the window", i, s)
			}
			prev = s.T
		}
		w := out.Window.Total()
		if inWindow != w.Count || errs != w.Errors || e.Headline >= 0 && headline != out.Window.Counts[e.Headline].Count {
			t.Errorf("the window's seconds count %d transactions (%d headline, %d errors), the window %d (%d, %d)",
				inWindow, headline, errs, w.Count, out.Window.Counts[max(e.Headline, 0)].Count, w.Errors)
		}
		if math.Abs(from-ws) > 0.0005 || math.Abs(to-we) > 0.0005 {
			t.Errorf("the window's seconds span %.3f..%.3f s, the window %.3f..%.3f s", from, to, ws, we)
		}
		// What the seconds before the window count ended before its start: the ticks read all the
		// VUs recorded, the window's part of them apart.
		if before+inWindow > txns {
			t.Errorf("the seconds count %d transactions before the window and %d in it, the ticks read %d in all", before, inWindow, txns)
		}
		// The window's transactions are counted as they are recorded; a VU may record one that ended
		// in the window after the last tick, at most one each.
		if measured.Count > w.Count || measured.Count < w.Count-int64(e.Cfg.VUs) || measured.Count == 0 {
			t.Errorf("the ticks measured %d transactions in the window, the outcome %d (at most %d more)", measured.Count, w.Count, e.Cfg.VUs)
		}
		if last := ticks[len(ticks)-1]; last.Phase != "done" || ticks[0].Phase != "window" && ticks[0].Phase != "rampup" {
			t.Errorf("phases %q … %q, want the last done", ticks[0].Phase, last.Phase)
		}
		if len(samples) < 2 || samples[len(samples)-1].Phase != "done" || samples[0].Count == 0 || samples[0].Interval <= 0 {
			t.Errorf("progress samples: %+v", samples)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		tg, err := target.Open(context.Background(), testutil.SQLite(t))
		if err != nil {
			t.Fatal(err)
		}
		defer tg.Close()
		check(t, &Engine{Cfg: Config{VUs: 2, Rampup: 500 * time.Millisecond, Duration: 2 * time.Second, Progress: time.Second, Seed: 1},
			Target: tg, Types: []string{"t"}, Headline: -1,
			NewVU: func(int) (workload.VU, error) { return &sleeper{d: 10 * time.Millisecond}, nil }})
	})
	t.Run("postgres", func(t *testing.T) {
		tg := edgeTable(t)
		check(t, edgeEngine(tg, Config{VUs: 2, Rampup: time.Second, Duration: 2 * time.Second, Progress: time.Second, Seed: 1}))
	})
}

// A run given a start time (a part of a run) measures from that instant for the planned
// duration, however much of its rampup was left when it got ready: its window ends where every
// part's does. A part that got ready with half its rampup left still measures 2 s, not 2.5.
func TestStartAtWindow(t *testing.T) {
	for _, ready := range []time.Duration{time.Second, 500 * time.Millisecond} {
		tg, err := target.Open(context.Background(), testutil.SQLite(t))
		if err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(ready)
		e := &Engine{Cfg: Config{VUs: 1, Rampup: time.Second, Duration: 2 * time.Second, StartAt: at, Seed: 1}, Target: tg,
			Types: []string{"t"}, Headline: -1, NewVU: func(int) (workload.VU, error) { return &sleeper{d: time.Millisecond}, nil }}
		out, err := e.Run(context.Background())
		tg.Close()
		if err != nil {
			t.Fatal(err)
		}
		if out.ClientWindow != 2*time.Second || !out.WindowStartsAt.Equal(at) {
			t.Errorf("ready %v before the start: the window starts at %s and lasts %v, want %s and 2s",
				ready, out.WindowStartsAt.Format(time.RFC3339Nano), out.ClientWindow, at.Format(time.RFC3339Nano))
		}
		var from, to float64
		prev, seen := 0.0, false
		for _, s := range out.Series {
			if s.Window {
				if !seen {
					from, seen = prev, true
				}
				to = s.T
			}
			prev = s.T
		}
		if math.Abs(to-from-2) > 0.0015 {
			t.Errorf("ready %v before the start: the window's seconds span %.3f..%.3f s", ready, from, to)
		}
	}
}

// ticks is a bus subscriber that hears only the run's seconds.
func ticks(f func(event.Tick)) event.Subscriber {
	return event.Func(func(_ context.Context, ev event.Event) error {
		if tk, ok := ev.(event.Tick); ok {
			f(tk)
		}
		return nil
	})
}

// idler is a VU whose transactions send nothing: the server counts none of them.
type idler struct{}

func (idler) Bind(context.Context, target.Conn) error { return nil }
func (idler) Next() int                               { return 0 }
func (idler) Do(ctx context.Context) (bool, error) {
	select {
	case <-ctx.Done():
	case <-time.After(20 * time.Millisecond):
	}
	return false, nil
}

// TestEdgePublishingNotInProgress: at the window's start every VU publishes its counts with a
// statement of its own, which the server counts. The window's TPM leaves those out; so must the
// progress line whose interval holds the edge: with 20 VUs that send nothing, the lines' server
// rates count fewer than half of them (they counted all 20 and more: 36 transactions where a
// cairn with the fix counts 6). What is left is the monitor's own readings, which it publishes
// only at the edges: each is left out of the line in which it was sent, and shows in the server's
// counter a line or two later, at the edge — a few, at most the readings of a second.
func TestEdgePublishingNotInProgress(t *testing.T) {
	tg := edgeTable(t)
	flushing(t, tg)
	for try := 1; ; try++ {
		seen := autovacuum(t, testutil.PG(t))
		e := edgeEngine(tg, Config{VUs: 20, Rampup: 1500 * time.Millisecond, Duration: 1500 * time.Millisecond, Progress: 500 * time.Millisecond, Seed: 1})
		e.NewVU = func(int) (workload.VU, error) { return idler{}, nil }
		var server float64
		lines := 0
		e.Bus = event.New(event.Func(func(_ context.Context, ev event.Event) error {
			if p, ok := ev.(event.Progress); ok && p.Source == "server" {
				lines++
				server += p.TxnPM * p.Interval.Minutes()
			}
			return nil
		}))
		out, err := e.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n := seen(); n > 0 && try < 3 {
			t.Logf("%d autovacuum workers visited the database: run again", n)
			continue
		}
		if lines < 2 || server >= 10 {
			t.Errorf("%d progress lines from the server's counter count %.1f transactions; the VUs sent none, and published at the edges (%d own statements in the window)", lines, server, out.OwnTxns)
		}
		return
	}
}

// chooser is a sleeper that takes choose to pick its next transaction: time between one
// transaction's end and the next one's start, which the issue lag counts.
type chooser struct {
	sleeper
	choose time.Duration
}

func (c *chooser) Next() int { time.Sleep(c.choose); return c.sleeper.Next() }

// TestIssueLag: VUs that take 3 ms to choose each next transaction issue each at least 3 ms after
// the last one ended; the lag counts the transactions started in the window, which differ from
// those that ended in it by at most one a VU at each edge.
func TestIssueLag(t *testing.T) {
	const choose = 3 * time.Millisecond
	out := engine(t, Config{VUs: 2, Rampup: 300 * time.Millisecond, Duration: 1500 * time.Millisecond, Seed: 1},
		func() workload.VU { return &chooser{sleeper: sleeper{d: 2 * time.Millisecond}, choose: choose} })
	l, n := out.IssueLag, out.Window.Counts[0].Count
	if l == nil {
		t.Fatal("no issue lag measured")
	}
	if l.N < n-2 || l.N > n+2 {
		t.Errorf("issue lag over %d transactions; %d ended in the window (2 VUs)", l.N, n)
	}
	if l.N == 0 || l.Sum < time.Duration(l.N)*choose || l.Max < choose {
		t.Errorf("issue lag %v over %d transactions (max %v): want at least %v each", l.Sum, l.N, l.Max, choose)
	}
}

// TestClockLag: a tick subscriber that holds the run's clock 1.3 s at the window's first tick makes
// the next tick at least 0.3 s late; every tick of the window before its end is counted, one per
// point of the series in the window less the one at its end.
func TestClockLag(t *testing.T) {
	tg, err := target.Open(context.Background(), testutil.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	const hold = 1300 * time.Millisecond
	held := false
	e := &Engine{Cfg: Config{VUs: 1, Rampup: 500 * time.Millisecond, Duration: 4 * time.Second, Seed: 1}, Target: tg, Types: []string{"t"}, Headline: -1,
		NewVU: func(int) (workload.VU, error) { return &sleeper{d: 5 * time.Millisecond}, nil }}
	e.Bus = event.New(event.Func(func(_ context.Context, ev event.Event) error {
		if tk, ok := ev.(event.Tick); ok && tk.Second.Window && !held {
			held = true
			time.Sleep(hold)
		}
		return nil
	}))
	out, err := e.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	points := 0
	for _, s := range out.Series {
		if s.Window {
			points++
		}
	}
	c := out.Clock
	if c.Ticks != points-1 {
		t.Errorf("%d ticks counted, the window has %d points (want one less: its end's)", c.Ticks, points)
	}
	if c.TickMax < hold-time.Second || c.TickSum < c.TickMax || c.StartLate < 0 || !c.Ended || c.EndLate < 0 {
		t.Errorf("clock %+v: want a tick at least %v late, a start and an end", c, hold-time.Second)
	}
}
