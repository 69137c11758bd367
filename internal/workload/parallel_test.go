package workload_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	_ "github.com/cairn-bench/cairn/internal/target/all"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
)

// TestBulkLoadRetries makes MariaDB fail a LOAD DATA with a retryable error and checks that
// workload.BulkLoad loads the job again, ends with every row exactly once, and counts each row
// once for the progress display, in all and in its table's count (a Tally's). Another session holds an uncommitted row with a key the load
// also writes, so the load waits on its lock and, after innodb_lock_wait_timeout (1 s), fails
// with error 1205; the blocker rolls back after 1.5 s, so a later attempt succeeds.
func TestBulkLoadRetries(t *testing.T) {
	ctx := context.Background()
	tg, admin := testutil.Open(t, testutil.MySQL(t))
	const table, n = "cairn_test_bulk_retry", 5000
	for _, q := range []string{"DROP TABLE IF EXISTS " + table,
		"CREATE TABLE " + table + " (id int PRIMARY KEY, v varchar(20)) ENGINE=InnoDB"} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "DROP TABLE IF EXISTS "+table) })

	released := testutil.HoldLock(t, tg, "INSERT INTO "+table+" VALUES (4000, 'blocker')", 1500*time.Millisecond)
	loader, err := tg.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer loader.Close()
	if _, err := loader.Exec(ctx, "SET SESSION innodb_lock_wait_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	var rows atomic.Int64
	tally := &workload.Tally{}
	attempts := 0
	loaded, err := workload.BulkLoad(workload.WithTally(ctx, tally), tg, loader, table, []string{"id", "v"}, &rows, func(w target.RowWriter) error {
		attempts++
		for id := int64(1); id <= n; id++ {
			w.Int(id)
			w.Text("row")
			if err := w.EndRow(); err != nil {
				return err
			}
		}
		return nil
	})
	if rerr := <-released; rerr != nil {
		t.Fatal(rerr)
	}
	if err != nil {
		t.Fatalf("after %d attempts: %v", attempts, err)
	}
	if attempts < 2 {
		t.Fatalf("the load succeeded at the first attempt: the blocker did not block it, so the retry was not tested")
	}
	var count, blocked int64
	if err := admin.QueryRow(ctx, "SELECT COUNT(*), COALESCE(SUM(v = 'blocker'), 0) FROM "+table).Scan(&count, &blocked); err != nil {
		t.Fatal(err)
	}
	if count != n || blocked != 0 || loaded != n || rows.Load() != n {
		t.Fatalf("%d attempts: table holds %d rows (%d the blocker's), load reported %d, progress counted %d; want %d, 0, %d, %d",
			attempts, count, blocked, loaded, rows.Load(), n, n, n)
	}
	if tb := tally.Tables(); len(tb) != 1 || tb[0].Name != table || tb[0].Rows != n || len(tally.Loaders()) != 0 {
		t.Fatalf("%d attempts: the tally counts %+v, loaders %v; want %d rows of %s, no loader (none of Parallel's)", attempts, tb, tally.Loaders(), n, table)
	}
}
