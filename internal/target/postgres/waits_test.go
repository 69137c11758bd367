package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestWaitsLeaveOwnOut: a session of the database sleeping in a statement is sampled, on its
// wait event, until its backend pid (SessionIDer) is named as one of cairn's own
// (target.OwnLeaver), and then it is left out, as the run's monitor is.
func TestWaitsLeaveOwnOut(t *testing.T) {
	ctx := context.Background()
	// A database of its own: no other test's sessions are sampled beside the sleeper.
	url := testutil.Databases(t, testutil.PG(t), "cairn_pg_own_waits")[0]
	tg, c := testutil.Open(t, url)
	src, err := tg.(target.Waiter).OpenWaits(ctx, c, target.WaitOptions{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close(ctx)
	sc, err := tg.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	pid, err := tg.(target.SessionIDer).SessionID(ctx, sc)
	if err != nil || pid <= 0 {
		t.Fatalf("session id %d, %v", pid, err)
	}
	done := make(chan error, 1)
	go func() { _, err := sc.Exec(ctx, "SELECT pg_sleep(3)"); done <- err }()
	defer func() {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	sleeping := func() int64 {
		ws, err := src.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		for _, w := range ws {
			if w.Name == "Timeout:PgSleep" {
				n += w.Count
			}
		}
		return n
	}
	deadline := time.Now().Add(2 * time.Second)
	for sleeping() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the sleeping session was never sampled")
		}
		time.Sleep(20 * time.Millisecond)
	}
	src.(target.OwnLeaver).LeaveOut(func() []int64 { return []int64{pid} })
	if n := sleeping(); n != 0 {
		t.Errorf("%d sessions sampled asleep with the sleeper named as cairn's own, want 0", n)
	}
}
