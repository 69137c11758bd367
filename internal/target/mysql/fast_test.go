package mysql_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	_ "github.com/cairn-bench/cairn/internal/target/mysql"
	"github.com/cairn-bench/cairn/internal/target/sqlconn"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// open connects to the test server; both are closed when the test ends.
func open(t *testing.T) (target.Target, target.Conn) {
	t.Helper()
	tg, err := target.Open(context.Background(), testutil.MySQL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	c, err := tg.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return tg, c
}

// scanAll reads every row of a named statement into fresh destinations of the given kinds.
func scanAll(t *testing.T, c target.Conn, name string, args ...any) [][]any {
	t.Helper()
	rows, err := c.Query(context.Background(), name, args...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer rows.Close()
	var out [][]any
	for rows.Next() {
		var id int64
		var s string
		var b []byte
		var f float64
		var d string // DECIMAL as text
		var ts time.Time
		var n any
		if err := rows.Scan(&id, &s, &b, &f, &d, &ts, &n); err != nil {
			t.Fatalf("%s: scan: %v", name, err)
		}
		out = append(out, []any{id, s, string(b), f, d, ts.UTC(), n})
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// The fast path (driver statements inside sql.Conn.Raw, rows buffered) must read exactly what
// database/sql reads: the test runs the same statements both ways on a real server and compares.
func TestFastPathMatchesDatabaseSQL(t *testing.T) {
	ctx := context.Background()
	tg, setup := open(t)
	for _, q := range []string{
		"DROP TABLE IF EXISTS cairn_fast_test",
		`CREATE TABLE cairn_fast_test (id INT PRIMARY KEY, s VARCHAR(200), b CHAR(60), f DOUBLE,
			d DECIMAL(12,2), ts DATETIME, n INT NULL)`,
	} {
		if _, err := setup.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	defer setup.Exec(ctx, "DROP TABLE cairn_fast_test")

	conns := map[string]*sqlconn.Conn{}
	for _, fast := range []bool{true, false} {
		c, err := tg.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		// The target's connection embeds *sqlconn.Conn; the slow one is the same with Fast off.
		sc := reflect.ValueOf(c).Elem().Field(0).Interface().(*sqlconn.Conn)
		sc.Fast = fast
		for name, q := range map[string]string{
			"ins": "INSERT INTO cairn_fast_test VALUES (?, ?, ?, ?, ?, ?, ?)",
			"sel": "SELECT id, s, b, f, d, ts, n FROM cairn_fast_test WHERE id BETWEEN ? AND ? ORDER BY id",
			"one": "SELECT s FROM cairn_fast_test WHERE id = ?",
			"upd": "UPDATE cairn_fast_test SET n = n + 1 WHERE id <= ?",
		} {
			if err := c.Prepare(ctx, name, q); err != nil {
				t.Fatal(err)
			}
		}
		conns[fmt.Sprint(fast)] = sc
	}
	fast, slow := conns["true"], conns["false"]

	// Rows of different lengths in one result, so that byte values are copied apart, and the
	// same statement again with other lengths, so that a reused interface box is refreshed.
	ts := time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC)
	for i := 1; i <= 40; i++ {
		var n any
		if i%3 != 0 {
			n = int64(i)
		}
		s := fmt.Sprintf("row %d %s", i, string(make([]byte, i%7)))
		if _, err := fast.Exec(ctx, "ins", i, s, []byte(fmt.Sprintf("pad-%d", i*i)), float64(i)/4, fmt.Sprintf("%d.%02d", i, i), ts.Add(time.Duration(i)*time.Hour), n); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range [][2]int{{1, 40}, {5, 5}, {30, 40}, {1, 3}, {41, 50}} {
		got := scanAll(t, fast, "sel", r[0], r[1])
		want := scanAll(t, slow, "sel", r[0], r[1])
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("rows %d..%d: fast path read\n%v\ndatabase/sql read\n%v", r[0], r[1], got, want)
		}
		if wantN := max(0, min(r[1], 40)-r[0]+1); len(got) != wantN {
			t.Fatalf("rows %d..%d: %d rows, want %d", r[0], r[1], len(got), wantN)
		}
	}

	var s, s2 string
	if err := fast.QueryRow(ctx, "one", 7).Scan(&s); err != nil {
		t.Fatal(err)
	}
	if err := slow.QueryRow(ctx, "one", 7).Scan(&s2); err != nil || s != s2 || s == "" {
		t.Fatalf("QueryRow: fast path %q, database/sql %q (%v)", s, s2, err)
	}
	if err := fast.QueryRow(ctx, "one", 999).Scan(&s); !errors.Is(err, target.ErrNoRows) {
		t.Fatalf("QueryRow of a missing row: %v, want target.ErrNoRows", err)
	}

	// Transactions through the fast path's text statements; rows affected as the driver counts them.
	if err := fast.Begin(ctx, false); err != nil {
		t.Fatal(err)
	}
	n, err := fast.Exec(ctx, "upd", 10)
	if err != nil || n != 7 { // ids 1..10 less the NULLs at 3, 6, 9
		t.Fatalf("UPDATE in a transaction: %d rows, %v; want 7", n, err)
	}
	if err := fast.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	var nv any
	if err := slow.QueryRow(ctx, "SELECT n FROM cairn_fast_test WHERE id = 1").Scan(&nv); err != nil || fmt.Sprint(nv) != "1" {
		t.Fatalf("after ROLLBACK n = %v (%v), want 1", nv, err)
	}

	// A server error reaches the caller as the driver's error, classified like any other.
	_, err = fast.Exec(ctx, "ins", 1, "dup", []byte("x"), 0.0, "0", ts, nil)
	if err == nil || tg.Classify(err) != target.ErrFatal {
		t.Fatalf("duplicate key through the fast path: %v (class %v)", err, tg.Classify(err))
	}
	// The connection remains usable after a statement error.
	if err := fast.QueryRow(ctx, "one", 2).Scan(&s); err != nil {
		t.Fatalf("after an error: %v", err)
	}
}

// LOAD DATA is told CHARACTER SET binary, so UTF-8 text must arrive in a utf8mb4 table unchanged
// (latin1 would have turned each multi-byte character into two or three).
func TestBulkLoadKeepsUTF8(t *testing.T) {
	ctx := context.Background()
	_, c := open(t)
	if _, err := c.Exec(ctx, "DROP TABLE IF EXISTS cairn_utf8_test"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, "CREATE TABLE cairn_utf8_test (id INT PRIMARY KEY, s VARCHAR(40)) DEFAULT CHARSET utf8mb4"); err != nil {
		t.Fatal(err)
	}
	defer c.Exec(ctx, "DROP TABLE cairn_utf8_test")
	want := "Zürich – 東京 ✓"
	n, err := c.BulkLoad(ctx, "cairn_utf8_test", []string{"id", "s"}, func(w target.RowWriter) error {
		w.Int(1)
		w.Text(want)
		return w.EndRow()
	})
	if err != nil || n != 1 {
		t.Fatalf("BulkLoad: %d rows, %v", n, err)
	}
	var got string
	var chars int64
	if err := c.QueryRow(ctx, "SELECT s, CHAR_LENGTH(s) FROM cairn_utf8_test WHERE id = 1").Scan(&got, &chars); err != nil {
		t.Fatal(err)
	}
	if got != want || chars != int64(len([]rune(want))) {
		t.Fatalf("loaded %q (%d characters), want %q (%d)", got, chars, want, len([]rune(want)))
	}
}
