package tpch

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	_ "github.com/cairn-bench/cairn/internal/target/all"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload/tpch/dbgen"
)

// TestLoadRetries makes MariaDB fail the load of a TPC-H range (streamed through LoadDelimited)
// with a retryable error, and checks that the range is generated and loaded again, every row
// exactly once, and counted once for the progress display. As in workload's TestBulkLoadRetries,
// another session holds an uncommitted row with a key the load also writes; the load fails with
// error 1205 after innodb_lock_wait_timeout (1 s), and the blocker rolls back after 1.5 s.
func TestLoadRetries(t *testing.T) {
	ctx := context.Background()
	tg, admin := testutil.Open(t, testutil.MySQL(t))
	var exists int
	if err := admin.QueryRow(ctx, "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'nation'").Scan(&exists); err != nil {
		t.Fatal(err)
	}
	if exists > 0 {
		t.Fatal("the test database already has a nation table (a TPC-H schema left behind?); run cairn tpch cleanup on it")
	}
	// The real schema has no key during the load; this one has the key the blocker needs.
	if _, err := admin.Exec(ctx, "CREATE TABLE nation (n_nationkey int PRIMARY KEY, n_name char(25), n_regionkey int, n_comment varchar(152)) ENGINE=InnoDB"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec(context.Background(), "DROP TABLE IF EXISTS nation") })

	// dbgen builds its text pool on first use, which takes longer than the lock wait: build it
	// now, so that the load's first attempt reaches the blocked key within the timeout.
	const sf = 0.01
	start, count := dbgen.PartRange("nation", sf, 1, 1)
	if err := dbgen.Generate(ctx, "nation", sf, start, count, dbgen.Options{Workers: 1}, func(ch dbgen.Chunk) error {
		ch.Release()
		return nil
	}); err != nil {
		t.Fatal(err)
	}

	released := testutil.HoldLock(t, tg, "INSERT INTO nation VALUES (10, 'blocker', 0, '')", 1500*time.Millisecond)
	loader, err := tg.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer loader.Close()
	if _, ok := loader.(target.DelimitedLoader); !ok {
		t.Fatal("the MySQL connection is not a target.DelimitedLoader: this test covers that path")
	}
	if _, err := loader.Exec(ctx, "SET SESSION innodb_lock_wait_timeout = 1"); err != nil {
		t.Fatal(err)
	}

	var progress atomic.Int64
	t0 := time.Now()
	gen, loaded, err := runJob(ctx, tg, loader, sf, loadJob{"nation", start, count}, &progress)
	elapsed := time.Since(t0)
	if rerr := <-released; rerr != nil {
		t.Fatal(rerr)
	}
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	if elapsed < time.Second {
		t.Fatalf("the load took %v: the blocker did not block it, so the retry was not tested", elapsed)
	}
	var rows, blocked int64
	if err := admin.QueryRow(ctx, "SELECT COUNT(*), COALESCE(SUM(n_name = 'blocker'), 0) FROM nation").Scan(&rows, &blocked); err != nil {
		t.Fatal(err)
	}
	if gen != 25 || loaded != 25 || rows != 25 || blocked != 0 || progress.Load() != 25 {
		t.Fatalf("generated %d, loaded %d, table holds %d (%d the blocker's), progress counted %d; want 25, 25, 25, 0, 25",
			gen, loaded, rows, blocked, progress.Load())
	}
}
