package run

import (
	"context"
	"errors"
	"testing"
	"time"

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
// beyond the 20 ms service time; a closed-loop tool would report 20 ms.
func TestOpenLoopCoordinatedOmission(t *testing.T) {
	out := engine(t, Config{VUs: 1, Duration: 2 * time.Second, Rate: 100, Seed: 1},
		func() workload.VU { return &sleeper{d: 20 * time.Millisecond} })
	lat := metrics.Summarize(out.Window.Lat[0])
	svc := metrics.Summarize(out.Window.Svc[0])
	if svc.P50 < 20 || svc.P50 > 30 {
		t.Errorf("service p50 %.1f ms, want about 20", svc.P50)
	}
	if lat.P50 < 200 {
		t.Errorf("latency p50 %.1f ms from the intended start, want far above the service time", lat.P50)
	}
	// Below capacity, latency and service time agree.
	out = engine(t, Config{VUs: 2, Duration: 2 * time.Second, Rate: 20, Seed: 1},
		func() workload.VU { return &sleeper{d: 5 * time.Millisecond} })
	lat = metrics.Summarize(out.Window.Lat[0])
	if lat.P50 > 15 {
		t.Errorf("latency p50 %.1f ms at 20/s for a 5 ms transaction", lat.P50)
	}
	if n := out.Window.Counts[0].Count; n < 25 || n > 60 {
		t.Errorf("%d transactions at 20/s over 2 s, want about 40", n)
	}
}

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

// TestServerCounterCoversTheWindow: PostgreSQL's sessions publish their commit counts to
// pg_stat_database at most once a second, so a plain reading at each edge misses up to a second
// of commits. The engine has every VU publish at the edges: the counter's change, less cairn's own
// statements, is then exactly the committed updates the table's sum counts.
func TestServerCounterCoversTheWindow(t *testing.T) {
	tg := edgeTable(t)
	flushing(t, tg)
	out, err := edgeEngine(tg, Config{VUs: 2, Rampup: 500 * time.Millisecond, Duration: 2 * time.Second, Seed: 1}).Run(context.Background())
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
// window until two seconds after it. The VUs stall with up to a second of commits held back from
// pg_stat_database: the reading says by how much at most, and the true count lies within it. The
// two transactions in flight at the window's end are counted, with their age, and their latency,
// over three seconds, is kept apart when they complete after the window.
func TestStalledWindowEnd(t *testing.T) {
	tg := edgeTable(t)
	flushing(t, tg)
	e := edgeEngine(tg, Config{VUs: 2, Rampup: 500 * time.Millisecond, Duration: 3 * time.Second, Seed: 1})
	var released <-chan error
	held := make(chan struct{})
	go func() {
		time.Sleep(1500 * time.Millisecond)
		released = testutil.HoldLock(t, tg, "UPDATE cairn_edge_test SET n = n WHERE id = 1", 4*time.Second)
		close(held)
	}()
	out, err := e.Run(context.Background())
	<-held
	if err != nil {
		t.Fatal(err)
	}
	if err := <-released; err != nil {
		t.Fatal(err)
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
	if w := out.End.At.Sub(out.Start.At); w > 3100*time.Millisecond {
		t.Errorf("window %v: the end edge waited for VUs stalled long before it", w)
	}
	f := out.InFlight
	if f.AtEnd != 2 || f.Oldest < 1500*time.Millisecond || f.Oldest > 2500*time.Millisecond || f.Unfinished != 0 {
		t.Errorf("in flight at the window's end: %+v, want 2, the oldest about 2 s, none unfinished", f)
	}
	a := out.After.Counts[0]
	if lat := metrics.Summarize(out.After.Lat[0]); a.Count != 2 || lat.Max < 3500 {
		t.Errorf("completed after the window: %+v, latency %+v; want both stalled transactions, over 3.5 s", a, lat)
	}
	if max := metrics.Summarize(out.Window.Lat[0]).Max; max > 1000 {
		t.Errorf("max latency in the window %.1f ms: no transaction completed in it after a stall", max)
	}
}

// TestTickSubscribers: a consumer subscribed to the tick hook beside the time series receives
// every second of the run, in order, the same seconds the series keeps, ending with the last.
func TestTickSubscribers(t *testing.T) {
	check := func(t *testing.T, e *Engine) {
		var ticks []Tick
		var setTxns []int64 // each tick's per-type set, counted during the call (it is reused)
		var measured metrics.Counts
		e.Subscribe(func(tk Tick) {
			ticks = append(ticks, tk)
			setTxns = append(setTxns, tk.Set.Total().Count)
			for _, c := range tk.Measured {
				measured.Add(c)
			}
		})
		var samples []workload.Progress
		e.SubscribeProgress(func(p workload.Progress) { samples = append(samples, p) })
		out, err := e.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(ticks) < 3 || len(ticks) != len(out.Series) {
			t.Fatalf("%d ticks received, %d seconds in the series (want the same, at least 3)", len(ticks), len(out.Series))
		}
		var txns int64
		for i, tk := range ticks {
			if tk.Second.T != out.Series[i].T || tk.Second.Txns != out.Series[i].Txns {
				t.Errorf("tick %d is second %+v, the series' is %+v", i, tk.Second, out.Series[i])
			}
			txns += tk.Second.Txns
			if setTxns[i] != tk.Second.Txns || tk.VUs != e.Cfg.VUs || len(tk.Types) != len(e.Types) {
				t.Errorf("tick %d: its set counts %d transactions, its second %d; %d VUs, types %v", i, setTxns[i], tk.Second.Txns, tk.VUs, tk.Types)
			}
			if tk.Txns != txns {
				t.Errorf("tick %d counts %d transactions since the start, the seconds add up to %d", i, tk.Txns, txns)
			}
			if want := time.Duration(i+1) * time.Second; i < len(ticks)-1 && (tk.Elapsed < want || tk.Elapsed > want+200*time.Millisecond) {
				t.Errorf("tick %d at %v, want second %v", i, tk.Elapsed, want)
			}
		}
		// The window's transactions are counted as they are recorded; a VU may record one that ended
		// in the window after the last tick, at most one each.
		if w := out.Window.Total().Count; measured.Count > w || measured.Count < w-int64(e.Cfg.VUs) || measured.Count == 0 {
			t.Errorf("the ticks measured %d transactions in the window, the outcome %d (at most %d more)", measured.Count, w, e.Cfg.VUs)
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
		check(t, edgeEngine(tg, Config{VUs: 2, Rampup: 500 * time.Millisecond, Duration: 2 * time.Second, Progress: time.Second, Seed: 1}))
	})
}
