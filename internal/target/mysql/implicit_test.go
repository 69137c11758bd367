package mysql_test

import (
	"context"
	"testing"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// With implicit transactions, Begin sends nothing (no Com_begin), a rollback still undoes the
// transaction's writes, and a statement outside Begin…Commit commits by itself: another
// connection sees it at once.
func TestImplicitTx(t *testing.T) {
	ctx := context.Background()
	c, other := testutil.ImplicitTx(t, testutil.MySQL(t), "CREATE TABLE cairn_implicit_test (id INT PRIMARY KEY) ENGINE=InnoDB")
	if err := c.Prepare(ctx, "ins", "INSERT INTO cairn_implicit_test VALUES (?)"); err != nil {
		t.Fatal(err)
	}
	begins := func() int64 {
		var name string
		var n int64
		if err := c.QueryRow(ctx, "SHOW SESSION STATUS LIKE 'Com_begin'").Scan(&name, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	seen := func(id int) bool {
		var n int
		if err := other.QueryRow(ctx, "SELECT COUNT(*) FROM cairn_implicit_test WHERE id = ?", id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	b0 := begins()
	step := func(what string, err error) {
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	step("begin", c.Begin(ctx, false))
	_, err := c.Exec(ctx, "ins", 1)
	step("insert 1", err)
	if seen(1) {
		t.Fatal("an uncommitted insert is visible to another connection: autocommit is still on")
	}
	step("rollback", c.Rollback(ctx))
	step("begin", c.Begin(ctx, false))
	_, err = c.Exec(ctx, "ins", 2)
	step("insert 2", err)
	step("commit", c.Commit(ctx))
	_, err = c.Exec(ctx, "ins", 3) // outside any transaction
	step("insert 3", err)
	if seen(1) || !seen(2) || !seen(3) {
		t.Fatalf("after rollback of 1, commit of 2 and a lone insert of 3: seen 1=%v 2=%v 3=%v, want false true true",
			seen(1), seen(2), seen(3))
	}
	step("begin", c.Begin(ctx, true))
	_, err = c.Exec(ctx, "ins", 4)
	step("insert 4", err)
	step("rollback", c.Rollback(ctx))
	if seen(4) {
		t.Fatal("a rolled-back insert after autocommit was turned back on is visible")
	}
	if n := begins() - b0; n != 0 {
		t.Fatalf("Begin sent %d BEGIN/START TRANSACTION statements, want 0", n)
	}
}
