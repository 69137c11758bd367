package run

import (
	"context"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/metrics"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
)

// terminal is a sleeper that runs on whichever executor's connection it is given, and keys and
// thinks for a fixed time.
type pooledSleeper struct {
	sleeper
	keying, think time.Duration
}

func (s *pooledSleeper) UseConn(c workload.VU)                       { s.c = c.(*pooledSleeper).c }
func (s *pooledSleeper) Keying(int) time.Duration                    { return s.keying }
func (s *pooledSleeper) Think(int) time.Duration                     { return s.think }
func (s *pooledSleeper) Bind(_ context.Context, c target.Conn) error { s.c = c; return nil }

// TestTerminalsOverPooledConnections runs 40 terminals over 3 PostgreSQL connections: the server
// sees 3 connections of the run's (and the engine's one for the snapshots) while it runs; latency
// runs from the submission, so it is the wait for a connection plus the service time; paced
// terminals key and think for as long as they said.
func TestTerminalsOverPooledConnections(t *testing.T) {
	url := testutil.PG(t)
	tg, c := testutil.Open(t, url)
	ctx := context.Background()
	var db string
	if err := c.QueryRow(ctx, "SELECT current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		var n int
		if err := c.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", db).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count() // other engineers' sessions in the same database, if any
	for _, paced := range []bool{false, true} {
		cfg := Config{VUs: 3, Terminals: 40, Rampup: 300 * time.Millisecond, Duration: 2 * time.Second, Seed: 1, Pace: paced}
		e := &Engine{Cfg: cfg, Target: tg, Types: []string{"t"}, Headline: -1,
			NewVU: func(int) (workload.VU, error) {
				return &pooledSleeper{sleeper: sleeper{d: 5 * time.Millisecond}, keying: 100 * time.Millisecond, think: 200 * time.Millisecond}, nil
			}}
		seen := make(chan int, 1)
		go func() {
			time.Sleep(time.Second)
			seen <- count() - before
		}()
		out, err := e.Run(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n := <-seen; n > cfg.VUs+1 {
			t.Errorf("paced %v: %d server connections during the run, want at most %d (the pool) + 1 (snapshots)", paced, n, cfg.VUs)
		}
		p := out.Pool
		if p == nil || p.Terminals != 40 || p.Connections != 3 {
			t.Fatalf("paced %v: pool %+v, want 40 terminals over 3 connections", paced, p)
		}
		lat, svc, wait := metrics.Summarize(out.Window.Lat[0]), metrics.Summarize(out.Window.Svc[0]), metrics.Summarize(p.Wait[0])
		n := out.Window.Counts[0].Count
		if !paced {
			// 3 connections × 2 s / ~5 ms: about 1,200 transactions, each waiting for 37 others.
			if n < 300 || n > 1300 {
				t.Errorf("closed loop: %d transactions, want about 1,200 (3 connections busy)", n)
			}
			if wait.Mean < 20 || lat.Mean < wait.Mean+svc.Mean*0.8 {
				t.Errorf("closed loop: latency mean %.1f ms, wait %.1f ms, service %.1f ms: want the wait (~60 ms for 37 terminals ahead) in the latency", lat.Mean, wait.Mean, svc.Mean)
			}
			continue
		}
		// 40 terminals each cycling in ~305 ms: about 260 transactions (fewer on a busy machine,
		// where timers fire late).
		if n < 100 || n > 300 {
			t.Errorf("paced: %d transactions, want about 260", n)
		}
		if k, th := p.Keying[0].Value(), p.Think[0].Value(); k < 100*time.Millisecond || k > 200*time.Millisecond || th < 200*time.Millisecond || th > 300*time.Millisecond {
			t.Errorf("paced: measured keying %v and think %v, want 100 ms and 200 ms (and the scheduler's delay)", k, th)
		}
		if p.Wait[0].TotalCount() != n || lat.Max < wait.Max {
			t.Errorf("paced: %d waits recorded for %d transactions, max wait %.1f ms > max latency %.1f ms", p.Wait[0].TotalCount(), n, wait.Max, lat.Max)
		}
	}
}

// TestTerminalsNeedPooledVUs: a workload whose VUs cannot share a connection is refused before
// anything connects.
func TestTerminalsNeedPooledVUs(t *testing.T) {
	e := &Engine{Cfg: Config{VUs: 1, Terminals: 2, Duration: time.Second}, Target: nil, Types: []string{"t"}, Headline: -1,
		NewVU: func(int) (workload.VU, error) { return &sleeper{}, nil }}
	if _, err := e.newPool(); err == nil {
		t.Fatal("terminals of a VU without UseConn accepted")
	} else if _, ok := err.(*TerminalsError); !ok {
		t.Fatalf("error %T %v, want a TerminalsError", err, err)
	}
}

// noop is a pooled VU whose transaction does nothing: what the run allocates per transaction is
// the engine's.
type noop struct {
	pooledSleeper
}

func (n *noop) Do(context.Context) (bool, error) { return false, nil }
func (n *noop) UseConn(c workload.VU)            { n.c = c.(*noop).c }

// TestPoolAllocatesNothingPerTransaction: a terminal's trip through the queue, an executor, the
// recording and back (through the heap when it keys and thinks) allocates nothing, so that the
// garbage collector does not grow with the transaction rate.
func TestPoolAllocatesNothingPerTransaction(t *testing.T) {
	tg, err := target.Open(context.Background(), testutil.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	for _, paced := range []bool{false, true} {
		e := &Engine{Cfg: Config{VUs: 2, Terminals: 200, Duration: time.Second, Seed: 1, Pace: paced}, Target: tg, Types: []string{"t"}, Headline: -1,
			NewVU: func(int) (workload.VU, error) {
				return &noop{pooledSleeper{keying: time.Millisecond, think: time.Millisecond}}, nil
			}}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		out, err := e.Run(context.Background())
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		n := out.Window.Counts[0].Count
		// The setup (200 terminals, histograms) and the monitor's seconds allocate a fixed amount.
		per := float64(after.Mallocs-before.Mallocs) / float64(n)
		t.Logf("paced %v: %d transactions, %.4f allocations each", paced, n, per)
		if n < 10000 || per > 0.2 {
			t.Errorf("paced %v: %d transactions, %.3f allocations per transaction, want none", paced, n, per)
		}
	}
}

// pooledBumper is a bumper that runs on whichever executor's connection it is given.
type pooledBumper struct{ bumper }

func (b *pooledBumper) UseConn(c workload.VU) { b.c = c.(*pooledBumper).c }

// TestLenderKeepsToThePool: with a Lender, the monitor's readings and an observer's statements
// (here one every 5 ms) ride the executors' connections, so the server sees no more sessions of
// the run than its 3 connections; the observer's statements are counted as cairn's own, so that
// the server's count of the window, less them, is exactly the committed updates; and every
// observer statement issued in the run got a connection within a transaction's time.
func TestLenderKeepsToThePool(t *testing.T) {
	flushing(t, edgeTable(t))
	ctx := context.Background()
	named, peak := testutil.PeakSessions(t, testutil.PG(t), 20*time.Millisecond)
	tg, err := target.Open(ctx, named)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	l := NewLender(tg)
	defer l.Close()
	obs := l.Conn()
	if err := obs.Prepare(ctx, "cairn_lender_test", "SELECT count(*) FROM cairn_edge_test"); err != nil {
		t.Fatal(err)
	}
	var sampled, slowest atomic.Int64
	stop, obsDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(obsDone)
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			t0 := time.Now()
			var n int64
			if err := obs.QueryRow(ctx, "cairn_lender_test").Scan(&n); err != nil {
				t.Error(err)
				return
			}
			sampled.Add(1)
			slowest.Store(max(slowest.Load(), int64(time.Since(t0))))
		}
	}()
	// counted runs again when an autovacuum worker's transactions counted beside the run's, or a
	// VU the host did not schedule was stalled at an edge: the exact check below is of neither.
	out, err := counted(t, func() *Engine {
		e := edgeEngine(tg, Config{VUs: 3, Terminals: 30, Rampup: 500 * time.Millisecond, Duration: 2 * time.Second, Seed: 1})
		e.NewVU = func(int) (workload.VU, error) { return &pooledBumper{}, nil }
		e.Lender = l
		return e
	}, func(o *Outcome) int { return o.Start.Stalled + o.End.Stalled })
	most := peak()
	close(stop)
	<-obsDone
	if err != nil {
		t.Fatal(err)
	}
	if n := most; n == 0 || n > 3 {
		t.Errorf("at most %d sessions of the run, want its 3 connections", n)
	}
	committed := out.End.Headline - out.Start.Headline
	counted := out.End.Counter - out.Start.Counter - out.OwnTxns
	if committed < 100 || counted != committed {
		t.Errorf("the server counted %d transactions in the window (less %d of cairn's own), %d were committed", counted, out.OwnTxns, committed)
	}
	if n := sampled.Load(); n < 100 {
		t.Errorf("the observer ran %d statements over the pool in at least 3 s at one per 5 ms, want 100 or more", n)
	}
	t.Logf("%d observer statements, the slowest %v; %d transactions committed, %d own", sampled.Load(), time.Duration(slowest.Load()), committed, out.OwnTxns)
}

// TestLenderCancelKeepsTheConnection: an observer that stops (its context cancelled) in the middle
// of a statement on a lent connection must not break that connection. The connection is an
// executor's, or the lender's own after the run: on a blocking socket (blockconn) the driver's
// cancellation is a deadline, which shuts the socket down for good, and a statement that had
// already got its answer left the driver thinking the connection alive; the next statement on it
// then failed with "write: broken pipe" (TestTerminalsOverPooledConnections, in CI).
func TestLenderCancelKeepsTheConnection(t *testing.T) {
	flushing(t, edgeTable(t))
	ctx := context.Background()
	tg, err := target.Open(ctx, testutil.PG(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	l := NewLender(tg)
	defer l.Close()
	obs := l.Conn()
	// cancelled runs a 300 ms statement whose context is cancelled 50 ms in.
	cancelled := func() {
		cctx, cancel := context.WithCancel(ctx)
		time.AfterFunc(50*time.Millisecond, cancel)
		var s string
		obs.QueryRow(cctx, "SELECT pg_sleep(0.3)::text").Scan(&s) // its own outcome is not the test's
	}
	// After the run, on the lender's own connection.
	cancelled()
	var n int
	if err := obs.QueryRow(ctx, "SELECT 1").Scan(&n); err != nil {
		t.Fatalf("the lender's own connection after an observer's cancelled statement: %v", err)
	}
	// During a run, on the executors' connections: each one lent a cancelled statement.
	done := make(chan struct{})
	go func() {
		defer close(done)
		time.Sleep(700 * time.Millisecond) // inside the window
		for range 3 {
			cancelled()
		}
		if err := obs.QueryRow(ctx, "SELECT 1").Scan(&n); err != nil {
			t.Errorf("an executor's connection after an observer's cancelled statement: %v", err)
		}
	}()
	e := edgeEngine(tg, Config{VUs: 3, Terminals: 30, Rampup: 500 * time.Millisecond, Duration: 2 * time.Second, Seed: 1})
	e.NewVU = func(int) (workload.VU, error) { return &pooledBumper{}, nil }
	e.Lender = l
	out, err := e.Run(ctx)
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if tot := out.Window.Total(); out.Reconnects != 0 || tot.Errors != 0 || tot.Count == 0 {
		t.Errorf("the executors reconnected %d times, %d of %d transactions failed: an observer's cancel broke their connections", out.Reconnects, tot.Errors, tot.Count)
	}
}
