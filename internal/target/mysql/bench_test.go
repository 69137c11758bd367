package mysql_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// benchRows is the size of the point-select table: small enough to load in a second, large enough
// that the selects spread over many pages.
const benchRows = 10000

// BenchmarkPointSelect runs sysbench's point select (SELECT c FROM sbtest1 WHERE id=?) through the
// target, prepared, on 16 connections at once as bench/micro.sh's 16-client round does, so that a
// -cpuprofile or -memprofile shows the client's cost per statement. b.N is the total statements.
func BenchmarkPointSelect(b *testing.B) {
	ctx := context.Background()
	tg, err := target.Open(target.WithConcurrency(ctx, 16), testutil.MySQL(b))
	if err != nil {
		b.Fatal(err)
	}
	defer tg.Close()
	setup, err := tg.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer setup.Close()
	for _, q := range []string{"DROP TABLE IF EXISTS cairn_bench_ps",
		"CREATE TABLE cairn_bench_ps (id INT PRIMARY KEY, k INT NOT NULL, c CHAR(120) NOT NULL, pad CHAR(60) NOT NULL)"} {
		if _, err := setup.Exec(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	defer setup.Exec(ctx, "DROP TABLE cairn_bench_ps")
	var sb strings.Builder
	for i := 1; i <= benchRows; i++ {
		if sb.Len() == 0 {
			sb.WriteString("INSERT INTO cairn_bench_ps VALUES ")
		} else {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, "(%d,%d,'%0120d','%060d')", i, i*7, i, i)
		if i%1000 == 0 {
			if _, err := setup.Exec(ctx, sb.String()); err != nil {
				b.Fatal(err)
			}
			sb.Reset()
		}
	}
	const clients = 16
	vuCtx := target.WithConcurrency(context.Background(), clients)
	conns := make([]target.Conn, clients)
	for i := range conns {
		if conns[i], err = tg.Conn(vuCtx); err != nil {
			b.Fatal(err)
		}
		defer conns[i].Close()
		if err := conns[i].Prepare(ctx, "ps", "SELECT c FROM cairn_bench_ps WHERE id=?"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	var wg sync.WaitGroup
	for g, c := range conns {
		n := b.N / clients
		if g < b.N%clients {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			var dst []byte
			for i := 0; i < n; i++ {
				id := int64((i*clients+g)*7919%benchRows + 1)
				if err := c.QueryRow(vuCtx, "ps", id).Scan(&dst); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
