package observe

import (
	"context"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// The window's figures come from its samples only, p99 by nearest rank, and a sample outside
// the window counts in its second but not in them.
func TestRunningTally(t *testing.T) {
	var tl tally
	for i := 0; i < 99; i++ {
		tl.add(2, true)
	}
	tl.add(31, true)
	tl.add(500, false)
	tl.add(-1, true) // a server counting its sampler twice reads as 0, not less
	if mx, p99, mean := tl.figures(); mx != 31 || p99 != 2 || mean != 2.27 {
		t.Errorf("max %v p99 %v mean %v", mx, p99, mean)
	}
	if tl.secMax != 500 || tl.n != 101 {
		t.Errorf("second's max %d, window samples %d", tl.secMax, tl.n)
	}
	tl = tally{}
	for i := 0; i < 10; i++ {
		tl.add(int64(i), true)
	}
	if _, p99, _ := tl.figures(); p99 != 9 {
		t.Errorf("p99 of 0…9: %v", p99)
	}
	if mx, p99, mean := (&tally{}).figures(); mx != 0 || p99 != 0 || mean != 0 {
		t.Error("no samples, yet figures")
	}
}

// The run queue is the running count of /proc/loadavg's fourth field; anything else is no reading.
func TestParseRunQueue(t *testing.T) {
	for in, want := range map[string]int64{"0.52 0.58 0.59 3/812 4242\n": 3, "1.00 1.00 1.00 128/90000 7\n": 128} {
		if got, ok := parseRunQueue([]byte(in)); !ok || got != want {
			t.Errorf("%q: %d %v, want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", "0.52 0.58 0.59", "0.52 0.58 0.59 /812 1", "0.52 0.58 0.59 3"} {
		if got, ok := parseRunQueue([]byte(in)); ok {
			t.Errorf("%q read as %d", in, got)
		}
	}
}

// One sample of the running threads, on each server: a busy session is counted and the
// sampler's own is not, and a sample costs one prepared statement a server, and no allocation of
// the sampler's own (what remains is the driver's: database/sql's and pgx's rows). PostgreSQL
// counts the test's own database, exactly; MariaDB's count is server-wide, where other users'
// statements may run too, so there the busy session is counted at least.
func TestRunningSample(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{testutil.PG(t), testutil.MySQL(t)} {
		tg, err := target.Open(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer tg.Close()
		env := &Env{Target: tg, Observation: Observation{Observe: "on", RunningSample: time.Hour}}
		ob, err := startRunning(ctx, env)
		if err != nil {
			t.Fatal(err)
		}
		o := ob.(*running)
		exact := tg.Name() == "PostgreSQL"
		n, q, ok, err := o.read(ctx)
		if err != nil || !ok || n < 0 || exact && n != 0 || (o.host && q < 1) {
			t.Errorf("%s idle: running %d, run queue %d, ok %v, %v: want 0 running (the sampler left out) and the reader in the run queue", tg.Name(), n, q, ok, err)
		}
		// A session sleeping inside a statement is a running thread.
		busy, err := tg.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		sleep := "SELECT pg_sleep(2)"
		if tg.Name() != "PostgreSQL" {
			sleep = "SELECT SLEEP(2)"
		}
		done := make(chan error, 1)
		go func() { _, err := busy.Exec(ctx, sleep); done <- err }()
		seen := int64(0)
		for deadline := time.Now().Add(time.Second); time.Now().Before(deadline) && seen <= n; time.Sleep(20 * time.Millisecond) {
			if seen, _, _, err = o.read(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if exact && seen != 1 || seen < 1 {
			t.Errorf("%s: %d running threads while one session sleeps in a statement, want 1", tg.Name(), seen)
		}
		allocs := testing.AllocsPerRun(50, func() { _, _, _, _ = o.read(ctx) })
		t.Logf("%s: %.0f allocations a sample", tg.Name(), allocs)
		if allocs > 16 { // 4 on MariaDB, 6 on PostgreSQL; parsing /proc/stat alone made 86
			t.Errorf("%s: %.0f allocations a sample", tg.Name(), allocs)
		}
		if err := <-done; err != nil {
			t.Error(err)
		}
		busy.Close()
		_ = o.Close(ctx)
	}
}
