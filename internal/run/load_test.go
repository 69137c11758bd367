package run

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
)

// startLog records when each VU started each transaction.
type startLog struct {
	mu     sync.Mutex
	starts map[int][]time.Time
	binds  int
}

// logged is a VU that runs SELECT 1, takes d (5 ms when 0), and logs its start.
type logged struct {
	id  int
	log *startLog
	c   target.Conn
	d   time.Duration
}

func (v *logged) Bind(_ context.Context, c target.Conn) error {
	v.c = c
	v.log.mu.Lock()
	v.log.binds++
	v.log.mu.Unlock()
	return nil
}
func (v *logged) Next() int { return 0 }
func (v *logged) Do(ctx context.Context) (bool, error) {
	now := time.Now()
	v.log.mu.Lock()
	v.log.starts[v.id] = append(v.log.starts[v.id], now)
	v.log.mu.Unlock()
	var one int
	if err := v.c.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		return false, err
	}
	d := v.d
	if d == 0 {
		d = 5 * time.Millisecond
	}
	time.Sleep(d)
	return false, nil
}

// TestLoadSchedule: a run of 2 → 8 → 2 VUs connects its 8 VUs before the clock starts, once; the
// 6 beyond the first 2 start no transaction before the rise, each runs in the 8 VUs' part, and
// after the fall each starts at most the one it had chosen before it: they are parked, holding
// their connections (no reconnect). The changes are made at their planned times or after,
// measured from the window's start on the engine's clock.
func TestLoadSchedule(t *testing.T) {
	tg, err := target.Open(context.Background(), testutil.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	log := &startLog{starts: map[int][]time.Time{}}
	cfg := Config{VUs: 8, Active: 2, Rampup: 300 * time.Millisecond, Duration: 1800 * time.Millisecond, Seed: 1,
		Load: []workload.LoadStep{{At: 600 * time.Millisecond, VUs: 8}, {At: 1200 * time.Millisecond, VUs: 2}}}
	e := &Engine{Cfg: cfg, Target: tg, Types: []string{"t"}, Headline: -1,
		NewVU: func(id int) (workload.VU, error) { return &logged{id: id, log: log}, nil }}
	out, err := e.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if log.binds != 8 || out.Reconnects != 0 {
		t.Fatalf("%d VUs bound, %d reconnects: want 8 bound at the start, none again", log.binds, out.Reconnects)
	}
	if len(out.Loads) != 2 {
		t.Fatalf("load changes %+v, want 2", out.Loads)
	}
	for i, l := range out.Loads {
		if l.VUs != cfg.Load[i].VUs || l.At < l.Planned || l.Planned != cfg.Load[i].At {
			t.Errorf("change %d: %+v, want %d VUs at %v or after", i, l, cfg.Load[i].VUs, cfg.Load[i].At)
		}
	}
	rise, fall := out.StartedAt.Add(out.Loads[0].T), out.StartedAt.Add(out.Loads[1].T)
	for id := 0; id < 8; id++ {
		var before, during, after int
		for _, s := range log.starts[id] {
			switch {
			case s.Before(rise):
				before++
			case s.Before(fall):
				during++
			default:
				after++
			}
		}
		if id < 2 {
			if before == 0 || during == 0 || after == 0 {
				t.Errorf("VU %d: %d, %d, %d transactions before, between and after the changes: it runs throughout", id, before, during, after)
			}
			continue
		}
		if before != 0 || during == 0 || after > 1 {
			t.Errorf("VU %d: %d, %d, %d transactions before, between and after the changes: want none, some, at most one (the one chosen before the fall)", id, before, during, after)
		}
	}
}

// TestLoadScheduleRate: in an open loop, a change to 1 VU and a total rate of 400/s from 200/s
// parks the other VUs (each starts at most the transaction it had chosen) and gives the one left
// the whole rate: its arrivals, 50/s before, come at 400/s after. The bound is a quarter of that
// ratio, so a host that lets the VU fall behind its schedule still passes, while a change that
// did not reach the arrivals (50/s on) fails.
func TestLoadScheduleRate(t *testing.T) {
	tg, err := target.Open(context.Background(), testutil.SQLite(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	log := &startLog{starts: map[int][]time.Time{}}
	cfg := Config{VUs: 4, Active: 4, Rate: 200, Rampup: 300 * time.Millisecond, Duration: 3 * time.Second, Seed: 1,
		Load: []workload.LoadStep{{At: 1500 * time.Millisecond, VUs: 1, Rate: 400}}}
	e := &Engine{Cfg: cfg, Target: tg, Types: []string{"t"}, Headline: -1,
		NewVU: func(id int) (workload.VU, error) { return &logged{id: id, log: log, d: 500 * time.Microsecond}, nil }}
	out, err := e.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Loads) != 1 || out.Loads[0].Rate != 400 || out.Loads[0].VUs != 1 {
		t.Fatalf("load changes %+v, want one to 1 VU at 400/s", out.Loads)
	}
	ws := out.WindowStartsAt
	change := out.StartedAt.Add(out.Loads[0].T)
	end := ws.Add(cfg.Duration)
	for id := 1; id < 4; id++ {
		after := 0
		for _, s := range log.starts[id] {
			if !s.Before(change) {
				after++
			}
		}
		if after > 1 {
			t.Errorf("VU %d started %d transactions after the change to 1 VU: want at most the one it had chosen", id, after)
		}
	}
	var before, after int
	for _, s := range log.starts[0] {
		switch {
		case !s.Before(ws) && s.Before(change):
			before++
		case !s.Before(change) && s.Before(end):
			after++
		}
	}
	rb, ra := float64(before)/change.Sub(ws).Seconds(), float64(after)/end.Sub(change).Seconds()
	if before == 0 || ra < 2*rb {
		t.Errorf("VU 0 started %.0f/s before the change, %.0f/s after: want about 50 then 400", rb, ra)
	}
	t.Logf("VU 0: %.0f/s before the change, %.0f/s after", rb, ra)
}
