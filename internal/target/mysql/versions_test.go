package mysql_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	neturl "net/url"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/target/mysql"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// TestLoadWithoutLocalInfile: a server that refuses LOAD DATA LOCAL (local_infile OFF, MySQL 8's
// default) is loaded by INSERTs, with the same values, whole or not at all. The test server's
// own local_infile decides the first half; the second forces INSERTs on any server.
func TestLoadWithoutLocalInfile(t *testing.T) {
	ctx := context.Background()
	tg, c := open(t)
	var local int64
	if err := c.QueryRow(ctx, "SELECT @@local_infile").Scan(&local); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s %s, local_infile %d", tg.Name(), mustVersion(t, tg), local)
	for _, q := range []string{"DROP TABLE IF EXISTS cairn_insert_test",
		"CREATE TABLE cairn_insert_test (id INT PRIMARY KEY, v BIGINT, m DECIMAL(12,2), f DECIMAL(12,4), s VARCHAR(40), t DATETIME, n INT) DEFAULT CHARSET utf8mb4"} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { c.Exec(context.Background(), "DROP TABLE IF EXISTS cairn_insert_test") })
	cols := []string{"id", "v", "m", "f", "s", "t", "n"}
	// Strings a quoted literal cannot hold as they are go as hexadecimal literals.
	strs := []string{"plain", "it's", `back\slash`, "nul\x00byte", "tab\there", "Zürich – 東京 ✓", ""}
	load := func(from, n int64) (int64, error) {
		return c.BulkLoad(ctx, "cairn_insert_test", cols, func(w target.RowWriter) error {
			for id := from; id < from+n; id++ {
				w.Int(id)
				w.Int(-id * 10)
				w.Money(-1234)
				w.Fixed4(56789)
				w.Text(strs[id%int64(len(strs))])
				w.Time(1_700_000_000)
				w.Null()
				if err := w.EndRow(); err != nil {
					return err
				}
			}
			return nil
		})
	}
	check := func(from, n int64) {
		t.Helper()
		rows, err := c.Query(ctx, "SELECT id, v, CAST(m AS CHAR), CAST(f AS CHAR), s, CAST(t AS CHAR), n IS NULL FROM cairn_insert_test WHERE id >= ? AND id < ? ORDER BY id", from, from+n)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var got int64
		for rows.Next() {
			var id, v int64
			var m, f, s, ts string
			var null bool
			if err := rows.Scan(&id, &v, &m, &f, &s, &ts, &null); err != nil {
				t.Fatal(err)
			}
			if want := strs[id%int64(len(strs))]; v != -id*10 || m != "-12.34" || f != "5.6789" || s != want || ts != "2023-11-14 22:13:20" || !null {
				t.Errorf("row %d: %d %s %s %q %s null %v, want %d -12.34 5.6789 %q 2023-11-14 22:13:20 null", id, v, m, f, s, ts, null, -id*10, want)
			}
			got++
		}
		if got != n {
			t.Errorf("%d rows from %d, want %d", got, from, n)
		}
	}
	if n, err := load(0, 100); err != nil || n != 100 {
		t.Fatalf("BulkLoad with local_infile %d: %d rows, %v", local, n, err)
	}
	check(0, 100)

	mysql.ForceInserts(tg)
	// Enough rows for several statements, sent while the next is written.
	if n, err := load(1000, 30000); err != nil || n != 30000 {
		t.Fatalf("BulkLoad by INSERTs: %d rows, %v", n, err)
	}
	check(1000, 30000)
	// A duplicate key in the last statement, and a generator that fails, leave nothing behind.
	if _, err := load(100000, 20000); err != nil {
		t.Fatal(err)
	}
	if _, err := load(120000-5, 10); err == nil {
		t.Error("an INSERT load with a duplicate key succeeded")
	}
	// A duplicate in the first of several statements: the load stops with the server's error.
	if _, err := load(99990, 30000); err == nil || !strings.Contains(err.Error(), "Duplicate entry") {
		t.Errorf("an INSERT load with a duplicate key in its first statement: %v, want the server's duplicate-key error", err)
	}
	failed := errors.New("generator failed")
	_, err := c.BulkLoad(ctx, "cairn_insert_test", cols, func(w target.RowWriter) error {
		for id := int64(200000); id < 220000; id++ {
			w.Int(id)
			for range 6 {
				w.Null()
			}
			if err := w.EndRow(); err != nil {
				return err
			}
		}
		return failed
	})
	if !errors.Is(err, failed) {
		t.Errorf("a failing generator: %v, want its error", err)
	}
	var total int64
	if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM cairn_insert_test").Scan(&total); err != nil || total != 100+30000+20000 {
		t.Errorf("%d rows after two failed loads, want %d (%v)", total, 100+30000+20000, err)
	}

	// TPC-H's delimited lines, dbgen's trailing delimiter included.
	dl := c.(target.DelimitedLoader)
	var b bytes.Buffer
	for id := 300000; id < 300500; id++ {
		fmt.Fprintf(&b, "%d|%d|12.50|0.1234|line %d|2024-01-02 03:04:05|7|\n", id, id*2, id)
	}
	if n, err := dl.LoadDelimited(ctx, "cairn_insert_test", cols, '|', &b); err != nil || n != 500 {
		t.Fatalf("LoadDelimited by INSERTs: %d rows, %v", n, err)
	}
	var s string
	var v, nn int64
	if err := c.QueryRow(ctx, "SELECT s, v, n FROM cairn_insert_test WHERE id = 300007").Scan(&s, &v, &nn); err != nil || s != "line 300007" || v != 600014 || nn != 7 {
		t.Errorf("delimited row 300007: %q %d %d, %v", s, v, nn, err)
	}
}

func mustVersion(t *testing.T, tg target.Target) string {
	v, err := tg.Version(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestTxnCounterIsComCommit: the counter a snapshot reads is SHOW GLOBAL STATUS's Com_commit +
// Com_rollback (MySQL 8's performance_schema.global_status has no Com_* at all), and a commit
// and a rollback each add one.
func TestTxnCounterIsComCommit(t *testing.T) {
	ctx := context.Background()
	tg, c := open(t)
	_, other := testutil.Open(t, testutil.MySQL(t))
	show := func() int64 { return testutil.ComCount(t, other) }
	// Nothing else commits on a test server between the reads but what this test does, except
	// other tests' servers' background work, which never runs COMMIT: read until steady.
	var before, snap, after int64
	for range 5 {
		before = show()
		r, err := target.Snapshot(ctx, tg, c, "")
		if err != nil || r.NoCounter {
			t.Fatalf("snapshot: %+v, %v", r, err)
		}
		snap = r.Counter
		after = show()
		if before == after {
			break
		}
	}
	if snap != before || after != before {
		t.Fatalf("the snapshot's counter %d, SHOW GLOBAL STATUS %d and %d around it", snap, before, after)
	}
	for _, end := range []func(context.Context) error{c.Commit, c.Rollback} {
		if err := c.Begin(ctx, false); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		if err := end(ctx); err != nil {
			t.Fatal(err)
		}
	}
	r, err := target.Snapshot(ctx, tg, c, "")
	if err != nil || r.Counter != snap+2 {
		t.Errorf("after a commit and a rollback the counter is %d, want %d (%v)", r.Counter, snap+2, err)
	}
	if tg.Kind() == "mysql" {
		var n int64
		if err := c.QueryRow(ctx, "SELECT COUNT(*) FROM performance_schema.global_status WHERE VARIABLE_NAME LIKE 'Com\\_%'").Scan(&n); err == nil && n > 0 {
			t.Logf("this MySQL's performance_schema.global_status has %d Com_* counters", n)
		}
	}
	if !strings.Contains(tg.TxnCounterName(), "Com_commit") {
		t.Errorf("counter named %q", tg.TxnCounterName())
	}
}

// TestAuthPlugins logs in as a user of each authentication plugin the server has, over TCP
// without TLS and with it, and runs a prepared statement on each connection: MySQL 8's default
// caching_sha2_password (a new user's first login is its full authentication: over TCP without
// TLS the password goes RSA-encrypted with the server's public key; the next login takes the
// server's cache), and mysql_native_password, which HammerDB's older clients need. TLS is tried
// where the server has it (MySQL 8 makes its own certificates; a MariaDB without any has none).
func TestAuthPlugins(t *testing.T) {
	ctx := context.Background()
	tg, admin := open(t)
	base, err := neturl.Parse(testutil.MySQL(t))
	if err != nil {
		t.Fatal(err)
	}
	var tls string
	if err := admin.QueryRow(ctx, "SELECT @@have_ssl").Scan(&tls); err != nil {
		tls = "NO"
	}
	plugins := map[string]bool{}
	rows, err := admin.Query(ctx, "SELECT PLUGIN_NAME FROM information_schema.PLUGINS WHERE PLUGIN_TYPE = 'AUTHENTICATION' AND PLUGIN_STATUS = 'ACTIVE'")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		plugins[p] = true
	}
	rows.Close()
	tried := 0
	for _, plugin := range []string{"caching_sha2_password", "mysql_native_password"} {
		if !plugins[plugin] {
			t.Logf("%s %s has no %s", tg.Name(), mustVersion(t, tg), plugin)
			continue
		}
		user := "cairn_auth_" + strings.TrimSuffix(plugin, "_password")
		create := "CREATE USER '" + user + "'@'127.0.0.1' IDENTIFIED WITH " + plugin + " BY 'Secret-9'"
		if tg.Kind() == "mariadb" {
			create = "CREATE USER '" + user + "'@'127.0.0.1' IDENTIFIED VIA " + plugin + " USING PASSWORD('Secret-9')"
		}
		for _, q := range []string{"DROP USER IF EXISTS '" + user + "'@'127.0.0.1'", create} {
			if _, err := admin.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		t.Cleanup(func() { admin.Exec(context.Background(), "DROP USER IF EXISTS '"+user+"'@'127.0.0.1'") })
		modes := []string{"false", "false"} // the first a full authentication, the second from the cache
		if tls == "YES" {
			modes = append(modes, "skip-verify")
		}
		for i, mode := range modes {
			u := *base
			u.User = neturl.UserPassword(user, "Secret-9")
			u.Path = "/information_schema"
			u.RawQuery = "tls=" + mode
			db, err := target.Open(ctx, u.String())
			if err != nil {
				t.Errorf("%s, tls=%s, login %d: %v", plugin, mode, i+1, err)
				continue
			}
			c, err := db.Conn(ctx)
			if err != nil {
				db.Close()
				t.Errorf("%s, tls=%s: a VU's connection: %v", plugin, mode, err)
				continue
			}
			var cipher, got string
			var n int64
			if err := c.Prepare(ctx, "q", "SELECT CURRENT_USER(), ? + 1"); err != nil {
				t.Errorf("%s, tls=%s: prepare: %v", plugin, mode, err)
			} else if err := c.QueryRow(ctx, "q", int64(41)).Scan(&got, &n); err != nil || n != 42 || !strings.HasPrefix(got, user+"@") {
				t.Errorf("%s, tls=%s: %q %d, %v", plugin, mode, got, n, err)
			}
			if err := c.QueryRow(ctx, "SELECT COALESCE((SELECT VARIABLE_VALUE FROM "+sessionStatus(tg)+" WHERE VARIABLE_NAME = 'Ssl_cipher'), '')").Scan(&cipher); err != nil {
				t.Errorf("%s, tls=%s: Ssl_cipher: %v", plugin, mode, err)
			} else if (cipher != "") != (mode != "false") {
				t.Errorf("%s, tls=%s: the session's cipher is %q", plugin, mode, cipher)
			}
			c.Close()
			db.Close()
			tried++
		}
	}
	if tried == 0 {
		t.Fatalf("%s has none of the plugins", tg.Name())
	}
}

// sessionStatus is the table of the session's status variables.
func sessionStatus(tg target.Target) string {
	if tg.Kind() == "mariadb" {
		return "information_schema.SESSION_STATUS"
	}
	return "performance_schema.session_status"
}
