package postgres_test

import (
	"context"
	"testing"

	_ "github.com/cairn-bench/cairn/internal/target/postgres"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// With implicit transactions BEGIN rides with the first statement. Whichever call comes first
// (Exec, QueryRow, Query), the statements after it are in the same transaction: another connection
// does not see them before COMMIT, and ROLLBACK undoes them. A failed statement leaves the
// connection usable after Rollback, and a transaction with no statement commits nothing.
func TestImplicitTx(t *testing.T) {
	ctx := context.Background()
	c, other := testutil.ImplicitTx(t, testutil.PG(t), "CREATE TABLE cairn_implicit_test (id int PRIMARY KEY)")
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	var pid int
	must("backend pid", c.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid))
	for _, p := range [][2]string{
		{"ins", "INSERT INTO cairn_implicit_test VALUES ($1)"},
		{"ins_ret", "INSERT INTO cairn_implicit_test VALUES ($1) RETURNING id"},
		{"count", "SELECT count(*) FROM cairn_implicit_test"},
	} {
		if err := c.Prepare(ctx, p[0], p[1]); err != nil {
			t.Fatal(err)
		}
	}
	visible := func() int {
		t.Helper()
		var n int
		must("count from another connection", other.QueryRow(ctx, "SELECT count(*) FROM cairn_implicit_test").Scan(&n))
		return n
	}
	// inTx asks another connection whether c sits idle inside a transaction.
	inTx := func() bool {
		t.Helper()
		var state string
		must("transaction state", other.QueryRow(ctx, "SELECT state FROM pg_stat_activity WHERE pid = $1", pid).Scan(&state))
		return state == "idle in transaction"
	}
	// Exec first.
	must("begin", c.Begin(ctx, false))
	_, err := c.Exec(ctx, "ins", 1)
	must("insert 1", err)
	if visible() != 0 || !inTx() {
		t.Fatal("the first Exec did not open a transaction")
	}
	must("rollback", c.Rollback(ctx))
	// QueryRow first.
	must("begin", c.Begin(ctx, false))
	var id int
	must("insert 2 returning", c.QueryRow(ctx, "ins_ret", 2).Scan(&id))
	if id != 2 || visible() != 0 {
		t.Fatalf("QueryRow first: id %d, %d rows visible before commit", id, visible())
	}
	must("commit", c.Commit(ctx))
	// Query first.
	must("begin", c.Begin(ctx, false))
	rows, err := c.Query(ctx, "count")
	must("count", err)
	n := -1
	for rows.Next() {
		must("scan", rows.Scan(&n))
	}
	rows.Close()
	must("rows", rows.Err())
	_, err = c.Exec(ctx, "ins", 3)
	must("insert 3", err)
	if n != 1 || visible() != 1 {
		t.Fatalf("Query first: counted %d (want 1), %d visible before commit (want 1)", n, visible())
	}
	must("commit", c.Commit(ctx))
	// A failed first statement, then rollback; the connection goes on.
	must("begin", c.Begin(ctx, false))
	if _, err := c.Exec(ctx, "ins", 3); err == nil {
		t.Fatal("a duplicate key was accepted")
	}
	must("rollback after error", c.Rollback(ctx))
	// Nothing between Begin and Commit.
	must("begin", c.Begin(ctx, false))
	must("empty commit", c.Commit(ctx))
	if got := visible(); got != 2 {
		t.Fatalf("%d rows committed, want 2 (ids 2 and 3)", got)
	}
	if inTx() {
		t.Fatal("a statement after the last commit runs inside a transaction")
	}
}
