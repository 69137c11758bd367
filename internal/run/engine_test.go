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
