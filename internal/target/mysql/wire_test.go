package mysql_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/target/sqlconn"
)

// The wire (prepared statements and text statements on the socket, wire.go) must read and write
// exactly what go-sql-driver/mysql does: the same statements run on a connection with the wire and
// on one through database/sql, over every column type the wire decodes, NULLs, signed and unsigned
// extremes, and values long enough to take the longer length encodings.
func TestWireMatchesDriver(t *testing.T) {
	ctx := context.Background()
	tg, setup := open(t)
	for _, q := range []string{
		"DROP TABLE IF EXISTS cairn_wire_test",
		`CREATE TABLE cairn_wire_test (id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT,
			su SMALLINT UNSIGNED, mi MEDIUMINT, iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, yr YEAR,
			db DOUBLE, de DECIMAL(20,4), vc VARCHAR(300), ch CHAR(10), bl BLOB, tx MEDIUMTEXT,
			en ENUM('a','b'), bt BIT(8))`,
	} {
		if _, err := setup.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// Dropped after the connections below close (cleanups run last first): an open transaction
	// of a failed test would hold the table's metadata lock.
	t.Cleanup(func() { setup.Exec(ctx, "DROP TABLE cairn_wire_test") })
	wired, plain := conn(t, tg, true), conn(t, tg, false)
	if wired.Wire == nil {
		t.Fatal("the connection has no wire")
	}
	const cols = "id, ti, tu, si, su, mi, iu, bi, bu, yr, db, de, vc, ch, bl, tx, en, bt"
	for _, c := range []*sqlconn.Conn{wired, plain} {
		for name, q := range map[string]string{
			"ins": "INSERT INTO cairn_wire_test VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			"sel": "SELECT " + cols + " FROM cairn_wire_test WHERE id BETWEEN ? AND ? ORDER BY id",
			"upd": "UPDATE cairn_wire_test SET vc = CONCAT(vc, 'z') WHERE id <= ? AND vc IS NOT NULL",
		} {
			if err := c.Prepare(ctx, name, q); err != nil {
				t.Fatal(err)
			}
		}
	}
	long := strings.Repeat("l", 70000) // a 3-byte length
	rows := [][]any{
		{1, int64(-128), uint8(255), int16(-32768), uint16(65535), int32(-8388608), uint32(4294967295), int64(-1 << 63), uint64(1<<64 - 1), 2026, 1.5, "12345678901234.5678", "x", []byte("abc"), []byte{0, 1, 2}, long, "b", []byte{0xff}},
		{2, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil, nil},
		{3, 127, 0, 32767, 0, 8388607, 0, int64(1<<63 - 1), uint64(1 << 63), 1901, -2.25e300, "-0.0001", "", "", []byte{}, "", "a", []byte{0}},
		{4, true, false, 7, 8, 9, 10, 11, uint64(12), 2000, float32(0.5), 3.25, strings.Repeat("v", 260), "y", []byte(nil), "t", "a", []byte{1}},
	}
	for i, r := range rows {
		c := wired
		if i%2 == 1 {
			c = plain
		}
		if n, err := c.Exec(ctx, "ins", r...); err != nil || n != 1 {
			t.Fatalf("insert %d: %d rows, %v", i+1, n, err)
		}
	}
	read := func(c *sqlconn.Conn, lo, hi int) [][]any {
		rs, err := c.Query(ctx, "sel", lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close()
		var out [][]any
		for rs.Next() {
			vals := make([]any, 18)
			dest := make([]any, 18)
			for i := range vals {
				dest[i] = &vals[i]
			}
			if err := rs.Scan(dest...); err != nil {
				t.Fatal(err)
			}
			out = append(out, vals)
		}
		if err := rs.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, r := range [][2]int{{1, 4}, {2, 2}, {5, 9}} {
		got, want := read(wired, r[0], r[1]), read(plain, r[0], r[1])
		if len(got) != len(want) {
			t.Fatalf("rows %d..%d: the wire read %d rows, the driver %d", r[0], r[1], len(got), len(want))
		}
		for i := range got {
			for j := range got[i] {
				if g, w := got[i][j], want[i][j]; !reflect.DeepEqual(g, w) {
					t.Errorf("row %d column %d: the wire read %T %.40v, the driver %T %.40v", i+1, j+1, g, g, w, w)
				}
			}
		}
	}
	var id, tu, bi int64
	var db float64
	var vc []byte
	var bu, de string
	for _, c := range []*sqlconn.Conn{wired, plain} {
		err := c.QueryRow(ctx, "SELECT id, tu, bi, db, vc, bu, de FROM cairn_wire_test WHERE id = 1").Scan(&id, &tu, &bi, &db, &vc, &bu, &de)
		if err != nil {
			t.Fatal(err)
		}
	}
	var got [7]any
	if err := wired.QueryRow(ctx, "sel", 3, 3).Scan(&id, &got[0], &got[1], &got[2], &got[3], &got[4], &got[5], &bi, &bu, &got[6], &db, &de, &vc, &got[0], &got[0], &got[0], &got[0], &got[0]); err != nil {
		t.Fatal(err)
	}
	if id != 3 || bi != 1<<63-1 || bu != "9223372036854775808" || db != -2.25e300 || de != "-0.0001" || len(vc) != 0 {
		t.Fatalf("typed scan of row 3: id %d bi %d bu %s db %g de %s vc %q", id, bi, bu, db, de, vc)
	}

	// Rows affected, inside a transaction begun and ended by text statements on the wire.
	for _, c := range []*sqlconn.Conn{wired, plain} {
		if err := c.Begin(ctx, false); err != nil {
			t.Fatal(err)
		}
		if n, err := c.Exec(ctx, "upd", 10); err != nil || n != 3 {
			t.Fatalf("UPDATE: %d rows, %v; want 3", n, err)
		}
		if err := c.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var vc1 string
	if err := plain.QueryRow(ctx, "SELECT vc FROM cairn_wire_test WHERE id = 1").Scan(&vc1); err != nil || vc1 != "x" {
		t.Fatalf("after ROLLBACK vc = %q (%v), want x", vc1, err)
	}

	// A server error through the wire is the driver's error, classified alike, and the connection
	// stays usable; a missing row is target.ErrNoRows.
	_, err := wired.Exec(ctx, "ins", rows[1]...)
	var me interface{ Error() string }
	if err == nil || tg.Classify(err) != target.ErrFatal || !errors.As(err, &me) {
		t.Fatalf("duplicate key through the wire: %v (class %v)", err, tg.Classify(err))
	}
	if _, err := wired.Exec(ctx, "SELECT * FROM no_such_table_here"); err == nil || tg.Classify(err) != target.ErrFatal {
		t.Fatalf("text statement error: %v", err)
	}
	// A lock wait timeout through the wire is retryable, as through the driver.
	if _, err := wired.Exec(ctx, "SET innodb_lock_wait_timeout = 1"); err != nil {
		t.Fatal(err)
	}
	if err := plain.Begin(ctx, false); err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Exec(ctx, "upd", 1); err != nil {
		t.Fatal(err)
	}
	_, err = wired.Exec(ctx, "upd", 1)
	if err := plain.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if tg.Classify(err) != target.ErrRetryable {
		t.Fatalf("lock wait timeout through the wire: %v (class %v), want retryable", err, tg.Classify(err))
	}
	if err := wired.QueryRow(ctx, "sel", 50, 60).Scan(&id); !errors.Is(err, target.ErrNoRows) {
		t.Fatalf("QueryRow of no row: %v, want target.ErrNoRows", err)
	}
	if err := wired.QueryRow(ctx, "sel", 1, 1).Scan(make([]any, 18)...); err == nil {
		t.Fatal("Scan into nil destinations succeeded")
	}
}

// conn opens a connection of tg as *sqlconn.Conn, with the wire and the driver's fast path or
// through database/sql alone.
func conn(t *testing.T, tg target.Target, fast bool) *sqlconn.Conn {
	t.Helper()
	c, err := tg.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sc := reflect.ValueOf(c).Elem().Field(0).Interface().(*sqlconn.Conn)
	sc.Fast = fast
	return sc
}

// A point select, a write and BEGIN/COMMIT allocate nothing on the wire: arguments are encoded
// into a reused buffer and rows decoded in place (through the driver, 3 to 4 allocations each).
func TestWireAllocatesNothing(t *testing.T) {
	ctx := context.Background()
	tg, setup := open(t)
	for _, q := range []string{"DROP TABLE IF EXISTS cairn_wire_alloc",
		"CREATE TABLE cairn_wire_alloc (id INT PRIMARY KEY, k INT, c CHAR(120))",
		"INSERT INTO cairn_wire_alloc VALUES (5000, 1, 'c of 5000'), (5001, 2, 'c of 5001')"} {
		if _, err := setup.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { setup.Exec(ctx, "DROP TABLE cairn_wire_alloc") })
	c := conn(t, tg, true)
	if err := c.Prepare(ctx, "ps", "SELECT c, k FROM cairn_wire_alloc WHERE id = ?"); err != nil {
		t.Fatal(err)
	}
	if err := c.Prepare(ctx, "up", "UPDATE cairn_wire_alloc SET k = k + 1 WHERE id = ?"); err != nil {
		t.Fatal(err)
	}
	args := []any{int64(5000)} // boxed once, as a VU's reused arguments are
	var dst []byte
	var k int64
	dests := []any{&dst, &k} // built once, as a VU's destinations are
	for name, f := range map[string]func() error{
		"point select": func() error { return c.QueryRow(ctx, "ps", args...).Scan(dests...) },
		"transaction": func() error {
			if err := c.Begin(ctx, false); err != nil {
				return err
			}
			if _, err := c.Exec(ctx, "up", args...); err != nil {
				return err
			}
			return c.Commit(ctx)
		},
	} {
		var err error
		n := testing.AllocsPerRun(500, func() {
			if e := f(); e != nil {
				err = e
			}
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if n != 0 {
			t.Errorf("%s: %.1f allocations, want 0", name, n)
		}
	}
	if string(dst) != "c of 5000" || k < 1 {
		t.Fatalf("read c %q, k %d", dst, k)
	}
}

// An execution whose parameter types are the ones the server last received with the statement
// sends none (new-params-bound-flag 0, as libmariadb and libmysqlclient send after a statement's
// first execution); one whose types changed sends them again. The server's own count of the
// session's bytes received shows it: 2 bytes a parameter fewer per execution with unchanged types
// than with types that change every time, and every value, NULLs and strings between integers,
// reads back as it was sent (through CAST(? AS CHAR): MySQL 8 types a bare ? from its first
// executions and would convert a later string to a number, with or without the types sent).
func TestWireSendsTypesOnlyWhenChanged(t *testing.T) {
	ctx := context.Background()
	tg, _ := open(t)
	c := conn(t, tg, true)
	if c.Wire == nil {
		t.Fatal("the connection has no wire")
	}
	if err := c.Prepare(ctx, "echo", "SELECT CAST(? AS CHAR)"); err != nil {
		t.Fatal(err)
	}
	received := func() int64 {
		t.Helper()
		var name string
		var v int64
		if err := c.QueryRow(ctx, "SHOW SESSION STATUS LIKE 'Bytes_received'").Scan(&name, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	echo := func(arg any) {
		t.Helper()
		var got any
		if err := c.QueryRow(ctx, "echo", arg).Scan(&got); err != nil {
			t.Fatalf("%T %v: %v", arg, arg, err)
		}
		if b, ok := got.([]byte); ok {
			got = string(b)
		}
		if g, w := fmt.Sprint(got), fmt.Sprint(arg); g != w {
			t.Fatalf("sent %T %s, read back %s", arg, w, g)
		}
	}
	const n = 40
	series := func(arg func(i int) any) int64 { // bytes received over n executions, and one status read
		echo(arg(-1))
		b0 := received()
		for i := range n {
			echo(arg(i))
		}
		return received() - b0
	}
	same := series(func(i int) any { return int64(i) })
	changing := series(func(i int) any {
		if i%2 == 0 {
			return uint64(i) // unsigned: another type
		}
		return int64(-i)
	})
	if changing-same != 2*n {
		t.Fatalf("%d executions with unchanged types: %d bytes received; with types changing every time: %d; want %d bytes fewer (2 per execution)",
			n, same, changing, 2*n)
	}
	for _, a := range []any{nil, "x", int64(7), int64(8), "yz", nil, nil, uint64(1 << 63), uint64(1<<63 + 1), 2.5, int64(9), int64(10)} {
		echo(a)
	}
}

// A connection killed under the wire fails its next statement as a lost connection (the engine
// then reconnects), not as an error of the statement.
func TestWireLostConnection(t *testing.T) {
	ctx := context.Background()
	tg, setup := open(t)
	c := conn(t, tg, true)
	if err := c.Prepare(ctx, "one", "SELECT CONNECTION_ID()"); err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := c.QueryRow(ctx, "one").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Exec(ctx, fmt.Sprintf("KILL %d", id)); err != nil {
		t.Fatal(err)
	}
	err := c.QueryRow(ctx, "one").Scan(&id)
	if err == nil || tg.Classify(err) != target.ErrConnection {
		t.Fatalf("statement on a killed connection: %v (class %v), want a connection error", err, tg.Classify(err))
	}
	if _, err := c.Exec(ctx, "COMMIT"); tg.Classify(err) != target.ErrConnection {
		t.Fatalf("next statement: %v, want the same connection error", err)
	}
}

// A statement whose context ends is abandoned as through the driver: the call returns the
// context's error at once and the connection is given up (the next call is a lost connection).
func TestWireCancel(t *testing.T) {
	tg, _ := open(t)
	c := conn(t, tg, true)
	if err := c.Prepare(context.Background(), "sleep", "SELECT SLEEP(?)"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	var n int64
	err := c.QueryRow(ctx, "sleep", 10).Scan(&n)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("a statement past its deadline: %v after %v, want the context's error at once", err, time.Since(start))
	}
	if _, err := c.Exec(context.Background(), "COMMIT"); tg.Classify(err) != target.ErrConnection {
		t.Fatalf("next statement: %v (class %v), want a connection error", err, tg.Classify(err))
	}
}

// The connection's cells (target.Cells) read as plain values do: an IntCell argument through the
// wire and through the driver (a statement with a DATETIME column, which the wire leaves to it),
// a column copied into BytesDest, and SUM's decimal and NULL into NullIntDest.
func TestCells(t *testing.T) {
	ctx := context.Background()
	_, c := open(t)
	for _, q := range []string{"DROP TABLE IF EXISTS cairn_wire_cells",
		"CREATE TABLE cairn_wire_cells (id INT PRIMARY KEY, k INT, c CHAR(20), t DATETIME)",
		"INSERT INTO cairn_wire_cells VALUES (300, 7, 'c of 300', '2026-01-02 03:04:05'), (301, -2, 'c of 301', NULL)"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { c.Exec(ctx, "DROP TABLE cairn_wire_cells") })
	cl, ok := c.(target.Cells)
	if !ok {
		t.Fatalf("%T does not implement target.Cells", c)
	}
	for name, q := range map[string]string{
		"sel":  "SELECT c, k FROM cairn_wire_cells WHERE id = ?",
		"sum":  "SELECT SUM(k) FROM cairn_wire_cells WHERE id BETWEEN ? AND ?",
		"time": "SELECT id, t FROM cairn_wire_cells WHERE id = ?",
	} {
		if err := c.Prepare(ctx, name, q); err != nil {
			t.Fatal(err)
		}
	}
	var id, hi, k, sum int64
	var valid bool
	var b []byte
	arg, argHi := cl.IntCell(&id), cl.IntCell(&hi)
	for _, id = range []int64{300, 301} {
		var wantC string
		var wantK int64
		if err := c.QueryRow(ctx, "sel", id).Scan(&wantC, &wantK); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRow(ctx, "sel", arg).Scan(cl.BytesDest(&b), &k); err != nil {
			t.Fatal(err)
		}
		if string(b) != wantC || k != wantK {
			t.Errorf("id %d through cells: c %q k %d; with plain values: c %q k %d", id, b, k, wantC, wantK)
		}
		var gotID, wantID int64
		var gotT, wantT any
		if err := c.QueryRow(ctx, "time", id).Scan(&wantID, &wantT); err != nil {
			t.Fatal(err)
		}
		if err := c.QueryRow(ctx, "time", arg).Scan(&gotID, &gotT); err != nil {
			t.Fatal(err)
		}
		if gotID != wantID || !reflect.DeepEqual(gotT, wantT) {
			t.Errorf("id %d through the driver with a cell: %d %v; with plain values: %d %v", id, gotID, gotT, wantID, wantT)
		}
	}
	dest := cl.NullIntDest(&sum, &valid)
	for _, r := range []struct {
		lo, hi, sum int64
		valid       bool
	}{{300, 301, 5, true}, {400, 500, 0, false}} {
		id, hi = r.lo, r.hi
		if err := c.QueryRow(ctx, "sum", arg, argHi).Scan(dest); err != nil {
			t.Fatal(err)
		}
		if sum != r.sum || valid != r.valid {
			t.Errorf("SUM(k) over %d..%d: %d (valid %v), want %d (valid %v)", r.lo, r.hi, sum, valid, r.sum, r.valid)
		}
	}
	if args := cl.SimpleArgs(); len(args) != 0 {
		t.Errorf("SimpleArgs %v: a statement without arguments is already one text statement", args)
	}
}
