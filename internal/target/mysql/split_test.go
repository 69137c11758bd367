package mysql_test

import (
	"context"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/target/blockconn"
)

// A connection sends a statement and reads its answer apart (target.Splitter), on a blocking
// socket as on one on Go's poller: one goroutine with a slow statement on one connection and a quick one on
// another learns from poll(2) that the quick one answered first and reads it while the slow one
// is still running; the first column comes back as text, prepared (binary) or text, integer or
// DECIMAL, and NULL leaves the destination as it was; a send and its receive allocate nothing.
func TestSplitReadsWhicheverAnswersFirst(t *testing.T) {
	for _, sockets := range []string{"blocking", "poller"} {
		t.Run(sockets, func(t *testing.T) {
			t.Setenv("CAIRN_SOCKETS", sockets)
			splitFirst(t)
		})
	}
}

func splitFirst(t *testing.T) {
	ctx := context.Background()
	tg, _ := open(t)
	var sp [2]target.Splitter
	for k := range sp {
		c, err := tg.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if err := c.Prepare(ctx, "sum", "SELECT SUM(x) FROM (SELECT ? AS x UNION ALL SELECT 2) t"); err != nil {
			t.Fatal(err)
		}
		s, ok := c.(target.Splitter)
		if !ok || !s.Split("sum") || !s.Split("") || s.Fd() < 0 {
			t.Fatalf("connection %d cannot split sends from answers", k)
		}
		sp[k] = s
	}
	if err := sp[0].SendText([]byte("SELECT SLEEP(0.3) + 7 /* slow */")); err != nil {
		t.Fatal(err)
	}
	if err := sp[1].SendPrepared("sum", []any{int64(40)}); err != nil {
		t.Fatal(err)
	}
	var p blockconn.Poller
	defer p.Close()
	if err := p.Wait([]int{sp[0].Fd(), sp[1].Fd()}); err != nil {
		t.Fatal(err)
	}
	if p.Ready(0) || !p.Ready(1) {
		t.Fatalf("ready: slow %v, quick %v; want only the quick one", p.Ready(0), p.Ready(1))
	}
	got, err := sp[1].Receive(nil)
	if err != nil || string(got) != "42" {
		t.Fatalf("quick: %q, %v", got, err)
	}
	if got, err = sp[0].Receive(got[:0]); err != nil || string(got) != "7" {
		t.Fatalf("slow: %q, %v", got, err)
	}
	if err := sp[0].SendText([]byte("SELECT NULL")); err != nil {
		t.Fatal(err)
	}
	if got, err = sp[0].Receive(append(got[:0], 'x')); err != nil || string(got) != "x" {
		t.Fatalf("NULL: %q, %v", got, err)
	}
	q, args := []byte("SELECT 1 + 2 /* cairn-req=1-1 */"), []any{int64(5)}
	allocs := testing.AllocsPerRun(100, func() {
		if err := sp[0].SendText(q); err != nil {
			t.Fatal(err)
		}
		if err := sp[1].SendPrepared("sum", args); err != nil {
			t.Fatal(err)
		}
		if got, err = sp[1].Receive(got[:0]); err != nil || string(got) != "7" {
			t.Fatalf("prepared: %q, %v", got, err)
		}
		if got, err = sp[0].Receive(got[:0]); err != nil || string(got) != "3" {
			t.Fatalf("text: %q, %v", got, err)
		}
	})
	if allocs > 0 {
		t.Errorf("%.1f allocations per pair of statements sent apart", allocs)
	}
}
