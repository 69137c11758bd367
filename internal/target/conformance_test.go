package target_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/sqlfile"
	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// conformanceSQL holds what the suite cannot write once for every dialect, looked up along each
// dialect's chain as the workloads' files are.
var conformanceSQL = sqlfile.Files{FS: os.DirFS("testdata"), Owner: "the conformance suite"}

// TestConformance is what every registered database must do for the workloads and the engine
// to be right on it: identity and settings, prepared statements by name, transactions, the error
// classes the engine acts on (a failed statement, a requested rollback, a deadlock or
// serialization failure, a lost connection), and bulk loads that are atomic. The list of
// databases comes from the registry: a new one is under test as soon as it registers.
func TestConformance(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			url := tg.URL(t)
			db, c := testutil.Open(t, url)
			ctx := context.Background()
			d := db.Dialect()
			sql, err := conformanceSQL.Map(d.Chain(), "conformance.sql")
			if err != nil {
				t.Fatalf("%s: %v (add testdata/sql/%s/conformance.sql)", d.Name, err, d.Name)
			}
			exec := func(c target.Conn, q string, args ...any) {
				t.Helper()
				if _, err := c.Exec(ctx, q, args...); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			count := func(where string) int64 {
				t.Helper()
				var n int64
				if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM cairn_conformance "+where).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			exec(c, "DROP TABLE IF EXISTS cairn_conformance")
			exec(c, sql["create"])
			t.Cleanup(func() { c.Exec(context.Background(), "DROP TABLE IF EXISTS cairn_conformance") })
			p := d.Placeholder

			t.Run("identity", func(t *testing.T) {
				if db.Kind() == "" || db.Name() == "" || db.Address() == "" || target.Where(db) == "" {
					t.Errorf("kind %q, name %q, address %q", db.Kind(), db.Name(), db.Address())
				}
				if _, ok := target.DialectNamed(d.Name); !ok {
					t.Errorf("dialect %q is not registered", d.Name)
				}
				if v, err := db.Version(ctx); err != nil || v == "" {
					t.Errorf("version %q, %v", v, err)
				}
				settings, err := db.Settings(ctx, c)
				if err != nil || len(settings) == 0 {
					t.Fatalf("settings %v, %v", settings, err)
				}
				for k, v := range settings {
					if k == "" || v == "" {
						t.Errorf("setting %q = %q", k, v)
					}
				}
				if q := db.UptimeSQL(); q != "" {
					var up float64
					if err := c.QueryRow(ctx, "SELECT "+q).Scan(&up); err != nil || up < 1e9 {
						t.Errorf("start time %v, %v", up, err)
					}
				}
				if cp, ok := db.(target.Capacity); ok {
					if n, limit, err := cp.FreeConnections(ctx, c); err != nil || n < 1 || limit == "" {
						t.Errorf("free connections %d (%s), %v", n, limit, err)
					}
				}
			})

			// cairn's own statements (observers' samples) go through OwnConn, and the counter
			// TPM reads must not count them: 200 of them, autocommitted, prepared or not, move
			// it by nothing (a few at most from the server's own background work).
			t.Run("own statements", func(t *testing.T) {
				if db.TxnCounterSQL() == "" {
					t.Skip("no server counter: TPM is the client's count")
				}
				// The counter is read in the database (its expression is of the session's), after a
				// pause in which the session publishes what it held back; each reading is one more.
				time.Sleep(1500 * time.Millisecond)
				read := func() int64 {
					t.Helper()
					if _, ok := db.(target.Snapshotter); ok { // a counter read its own way (MySQL 8: SHOW GLOBAL STATUS)
						r, err := target.Snapshot(ctx, db, c, "")
						if err != nil || r.NoCounter {
							t.Fatalf("reading the counter: %v (no counter: %v)", err, r.NoCounter)
						}
						return r.Counter
					}
					var n int64
					if err := c.QueryRow(ctx, "SELECT "+db.TxnCounterSQL()).Scan(&n); err != nil {
						t.Fatal(err)
					}
					return n
				}
				own, err := target.OwnConn(ctx, db)
				if err != nil {
					t.Fatal(err)
				}
				before := read()
				if err := own.Prepare(ctx, "conf_own", "SELECT "+p(1)+" + 0"); err != nil {
					t.Fatal(err)
				}
				for i := range 100 {
					var v int64
					if err := own.QueryRow(ctx, "conf_own", int64(i)).Scan(&v); err != nil {
						t.Fatal(err)
					}
					if _, err := own.Exec(ctx, "SELECT 1"); err != nil {
						t.Fatal(err)
					}
				}
				if err := own.Begin(ctx, false); err == nil && !target.CountsOwn(db) {
					t.Error("Begin on a connection for cairn's own statements: want it refused (its COMMIT would count)")
				}
				own.Close() // a session that ends publishes what it held back
				time.Sleep(1500 * time.Millisecond)
				if moved := read() - before; moved > 5 {
					t.Errorf("200 statements on a connection for cairn's own statements moved the transaction counter by %d: %s", moved, db.TxnCounterName())
				}
			})

			t.Run("prepared", func(t *testing.T) {
				ins := fmt.Sprintf("INSERT INTO cairn_conformance (id, v, s) VALUES (%s, %s, %s)", p(1), p(2), p(3))
				if err := c.Prepare(ctx, "conf_ins", ins); err != nil {
					t.Fatal(err)
				}
				if err := c.Prepare(ctx, "conf_sel", "SELECT v, s FROM cairn_conformance WHERE id = "+p(1)); err != nil {
					t.Fatal(err)
				}
				for i := int64(1); i <= 3; i++ {
					if n, err := c.Exec(ctx, "conf_ins", i, 10*i, "row "+strconv.FormatInt(i, 10)); err != nil || n != 1 {
						t.Fatalf("insert %d: %d rows, %v", i, n, err)
					}
				}
				var v int64
				var s string
				if err := c.QueryRow(ctx, "conf_sel", int64(2)).Scan(&v, &s); err != nil || v != 20 || s != "row 2" {
					t.Errorf("row 2: %d %q, %v", v, s, err)
				}
				if err := c.QueryRow(ctx, "conf_sel", int64(99)).Scan(&v, &s); !errors.Is(err, target.ErrNoRows) {
					t.Errorf("no row: %v, want target.ErrNoRows", err)
				}
				rows, err := c.Query(ctx, "SELECT id, v FROM cairn_conformance WHERE id >= "+p(1)+" ORDER BY id", int64(2))
				if err != nil {
					t.Fatal(err)
				}
				if rows.NumColumns() != 2 {
					t.Errorf("%d columns, want 2", rows.NumColumns())
				}
				var got []int64
				for rows.Next() {
					var id, v int64
					if err := rows.Scan(&id, &v); err != nil {
						t.Fatal(err)
					}
					got = append(got, id, v)
				}
				rows.Close()
				if err := rows.Err(); err != nil || fmt.Sprint(got) != "[2 20 3 30]" {
					t.Errorf("rows %v, %v", got, err)
				}
			})

			t.Run("transactions", func(t *testing.T) {
				before := count("")
				if err := c.Begin(ctx, false); err != nil {
					t.Fatal(err)
				}
				exec(c, "INSERT INTO cairn_conformance (id) VALUES (100)")
				if err := c.Rollback(ctx); err != nil {
					t.Fatal(err)
				}
				if n := count(""); n != before {
					t.Errorf("after a rollback: %d rows, want %d", n, before)
				}
				// The counter as the engine reads it (target.Snapshot): on MySQL 8 only SHOW
				// GLOBAL STATUS has Com_commit, so it is not always one expression.
				counter := func() int64 {
					r, err := target.Snapshot(ctx, db, c, "")
					if err != nil {
						t.Fatalf("transaction counter: %v", err)
					}
					if r.NoCounter && db.TxnCounterSQL() != "" {
						t.Fatalf("%s: the server answered without it", db.TxnCounterName())
					}
					return r.Counter
				}
				start := counter()
				if err := c.Begin(ctx, false); err != nil {
					t.Fatal(err)
				}
				exec(c, "INSERT INTO cairn_conformance (id) VALUES (100)")
				if err := c.Commit(ctx); err != nil {
					t.Fatal(err)
				}
				if n := count(""); n != before+1 {
					t.Errorf("after a commit: %d rows, want %d", n, before+1)
				}
				if db.TxnCounterSQL() != "" {
					// Servers publish their counters with a delay (PostgreSQL's statistics at most
					// once a second).
					deadline := time.Now().Add(5 * time.Second)
					for counter() <= start && time.Now().Before(deadline) {
						time.Sleep(100 * time.Millisecond)
					}
					if end := counter(); end <= start {
						t.Errorf("%s stayed at %v after a commit", db.TxnCounterName(), end)
					}
				}
			})

			t.Run("error classes", func(t *testing.T) {
				_, err := c.Exec(ctx, "INSERT INTO cairn_conformance (id) VALUES (1)")
				if err == nil || db.Classify(err) != target.ErrFatal {
					t.Errorf("duplicate key: %v, class %v, want %v", err, classOf(db, err), target.ErrFatal)
				}
				_, err = c.Exec(ctx, "SELEC nothing")
				if err == nil || db.Classify(err) != target.ErrFatal {
					t.Errorf("syntax error: %v, class %v", err, classOf(db, err))
				}
				if count("WHERE id = 1") != 1 {
					t.Error("the connection is unusable after a failed statement")
				}
				if q := sql["raise_rollback"]; q != "" {
					_, err := c.Exec(ctx, q)
					if err == nil || db.Classify(err) != target.ErrRollback {
						t.Errorf("%s: %v, class %v, want %v", q, err, classOf(db, err), target.ErrRollback)
					}
				} else if d.Procedures {
					t.Errorf("%s has stored procedures but conformance.sql shows no raise_rollback", d.Name)
				}
				t.Run("conflict", func(t *testing.T) { conflict(t, db, c) })
				t.Run("connection lost", func(t *testing.T) {
					if sql["backend"] == "" {
						if !d.Embedded {
							t.Fatalf("%s is a server but conformance.sql has no backend and kill statements", d.Name)
						}
						t.Skip("embedded: no connection to lose")
					}
					victim, err := db.Conn(ctx)
					if err != nil {
						t.Fatal(err)
					}
					defer victim.Close()
					var id int64
					if err := victim.QueryRow(ctx, sql["backend"]).Scan(&id); err != nil {
						t.Fatal(err)
					}
					// ID is a number the server gave, not input.
					if _, err := c.Exec(ctx, strings.ReplaceAll(sql["kill"], "ID", strconv.FormatInt(id, 10))); err != nil {
						t.Fatal(err)
					}
					var err2 error
					for i := 0; i < 50 && err2 == nil; i++ { // the kill takes effect asynchronously
						_, err2 = victim.Exec(ctx, "SELECT 1")
						if err2 == nil {
							time.Sleep(20 * time.Millisecond)
						}
					}
					if err2 == nil || db.Classify(err2) != target.ErrConnection {
						t.Errorf("killed connection: %v, class %v, want %v", err2, classOf(db, err2), target.ErrConnection)
					}
				})
			})

			t.Run("bulk load", func(t *testing.T) {
				before := count("")
				row := func(w target.RowWriter, id int64) error {
					w.Int(id)
					w.Int(id * 10)
					w.Money(1234)
					w.Fixed4(5678)
					w.Str([]byte("bulk\ttab"))
					w.Time(1_700_000_000)
					w.Null()
					return w.EndRow()
				}
				cols := []string{"id", "v", "m", "f", "s", "t", "n"}
				n, err := c.BulkLoad(ctx, "cairn_conformance", cols, func(w target.RowWriter) error {
					for id := int64(1000); id < 1100; id++ {
						if err := row(w, id); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil || n != 100 {
					t.Fatalf("bulk load: %d rows, %v", n, err)
				}
				var s string
				var v int64
				if err := c.QueryRow(ctx, "SELECT s, v FROM cairn_conformance WHERE id = 1001 AND n IS NULL").Scan(&s, &v); err != nil || s != "bulk\ttab" || v != 10010 {
					t.Errorf("row 1001: %q %d, %v", s, v, err)
				}
				// A fill that fails half way, and rows the server refuses (a duplicate key), both
				// leave nothing behind.
				failed := errors.New("generator failed")
				_, err = c.BulkLoad(ctx, "cairn_conformance", cols, func(w target.RowWriter) error {
					for id := int64(2000); id < 2500; id++ {
						if err := row(w, id); err != nil {
							return err
						}
					}
					return failed
				})
				if !errors.Is(err, failed) {
					t.Errorf("failing fill: %v, want its error", err)
				}
				_, err = c.BulkLoad(ctx, "cairn_conformance", cols, func(w target.RowWriter) error {
					for _, id := range []int64{3000, 3001, 1050, 3002} {
						if err := row(w, id); err != nil {
							return err
						}
					}
					return nil
				})
				if err == nil {
					t.Error("a bulk load with a duplicate key succeeded")
				}
				if n := count(""); n != before+100 {
					t.Errorf("%d rows after two failed bulk loads, want %d: a failed load left rows behind", n, before+100)
				}
			})
		})
	}
}

// conflict makes two transactions collide, the way each kind of database reports it: a deadlock
// between two writers on a server, a write on a stale snapshot in SQLite, which runs one writer
// at a time. Either must be retryable.
func conflict(t *testing.T, db target.Target, a target.Conn) {
	ctx := context.Background()
	b, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	upd := func(c target.Conn, id int) error {
		_, err := c.Exec(ctx, fmt.Sprintf("UPDATE cairn_conformance SET v = v + 1 WHERE id = %d", id))
		return err
	}
	if db.Dialect().SingleWriter {
		// b reads in a deferred transaction, a commits a write, b's write then conflicts.
		if err := b.Begin(ctx, true); err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := b.QueryRow(ctx, "SELECT COUNT(*) FROM cairn_conformance").Scan(&n); err != nil {
			t.Fatal(err)
		}
		if err := upd(a, 1); err != nil {
			t.Fatal(err)
		}
		err := upd(b, 2)
		b.Rollback(ctx)
		if err == nil || db.Classify(err) != target.ErrRetryable {
			t.Errorf("write on a stale snapshot: %v, class %v, want %v", err, classOf(db, err), target.ErrRetryable)
		}
		return
	}
	for _, c := range []target.Conn{a, b} {
		if err := c.Begin(ctx, false); err != nil {
			t.Fatal(err)
		}
	}
	if err := upd(a, 1); err != nil {
		t.Fatal(err)
	}
	if err := upd(b, 2); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- upd(a, 2) }() // waits for b
	time.Sleep(200 * time.Millisecond)
	errB := upd(b, 1) // waits for a: a deadlock, one of them is chosen
	var errA error
	if errB == nil {
		errA = <-done
	} else {
		b.Rollback(ctx)
		errA = <-done
	}
	a.Rollback(ctx)
	b.Rollback(ctx)
	victim := errB
	if victim == nil {
		victim = errA
	}
	if victim == nil || db.Classify(victim) != target.ErrRetryable {
		t.Errorf("deadlock: %v / %v, class %v, want %v", errA, errB, classOf(db, victim), target.ErrRetryable)
	}
}

func classOf(db target.Target, err error) string {
	if err == nil {
		return "none"
	}
	return db.Classify(err).String()
}

// TestStudyLockFreeAtClose: a study's lock is free as soon as Close returns, so that the next
// study, started the moment one ends, takes it. Closing the session alone left it to the server
// to let go once it noticed the session had ended, and a study right after another was refused
// as "another study is running" now and then.
func TestStudyLockFreeAtClose(t *testing.T) {
	for _, scheme := range []string{"postgres", "mysql"} {
		t.Run(scheme, func(t *testing.T) {
			ctx := context.Background()
			db, err := target.Open(ctx, testutil.URL(t, scheme))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			l, ok := db.(target.StudyLocker)
			if !ok {
				t.Skip("no study lock")
			}
			for i := range 30 {
				lock, heldBy, err := l.LockStudies(ctx, "cairn study lock test")
				if err != nil || lock == nil {
					t.Fatalf("take %d: held by %q, %v", i+1, heldBy, err)
				}
				if err := lock.Close(); err != nil {
					t.Fatalf("close %d: %v", i+1, err)
				}
			}
		})
	}
}
