// Package testutil finds the real database servers the integration tests use. A test that needs a
// server it cannot reach skips with the reason, unless CAIRN_TEST_REQUIRE names that server (CI
// sets CAIRN_TEST_REQUIRE=postgres,mysql,chromium), in which case it fails.
package testutil

import (
	"context"
	"fmt"
	neturl "net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
	_ "github.com/cairn-bench/cairn/internal/target/all"
)

// Required reports whether CAIRN_TEST_REQUIRE names kind (a scheme, "postgres" or "mysql", or
// "chromium").
func Required(kind string) bool {
	for _, k := range strings.Split(os.Getenv("CAIRN_TEST_REQUIRE"), ",") {
		if strings.TrimSpace(k) == kind {
			return true
		}
	}
	return false
}

func reach(t testing.TB, kind, env, def string) string {
	t.Helper()
	u := os.Getenv(env)
	if u == "" {
		u = def
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	tg, err := target.Open(ctx, u)
	if err != nil {
		if Required(kind) {
			t.Fatalf("%s is required (CAIRN_TEST_REQUIRE) but unreachable at %s: %v", kind, target.Redact(u), err)
		}
		t.Skipf("no %s server (set %s): %v", kind, env, err)
	}
	tg.Close()
	return u
}

// URL returns a test database of the registered scheme: a new file for a file scheme, else the
// server its TestEnv names (or its TestURL), or it skips (fails when CAIRN_TEST_REQUIRE names it).
func URL(t testing.TB, scheme string) string {
	t.Helper()
	for _, s := range target.Registered() {
		if s.Names[0] != scheme {
			continue
		}
		if s.File {
			return scheme + "://" + t.TempDir() + "/cairn.db"
		}
		return reach(t, scheme, s.TestEnv, s.TestURL)
	}
	t.Fatalf("no registered database %q", scheme)
	return ""
}

// Passwords returns the distinct passwords of the configured test servers' URLs (their TestEnv or
// TestURL), read without connecting: a test that runs its targets side by side can set one
// CAIRN_PASSWORD for all of them only when there is at most one.
func Passwords() []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range target.Registered() {
		if s.File {
			continue
		}
		u := os.Getenv(s.TestEnv)
		if u == "" {
			u = s.TestURL
		}
		if p, err := target.ParseURL(u); err == nil && p.Password != "" && !seen[p.Password] {
			seen[p.Password] = true
			out = append(out, p.Password)
		}
	}
	return out
}

// PG returns the PostgreSQL test URL, or skips/fails.
func PG(t testing.TB) string { return URL(t, "postgres") }

// MySQL returns the MySQL/MariaDB test URL, or skips/fails.
func MySQL(t testing.TB) string { return URL(t, "mysql") }

// SQLite returns a URL of a new database file in the test's temporary directory.
func SQLite(t testing.TB) string { return URL(t, "sqlite") }

// Target is one registered database, for tests that run on every one.
type Target struct {
	Name string // the canonical scheme
	URL  func(testing.TB) string
}

// Targets lists every registered database, for table-driven tests: a new one is tested by
// everything that ranges over this list as soon as it registers.
func Targets() []Target {
	var out []Target
	for _, s := range target.Registered() {
		name := s.Names[0]
		out = append(out, Target{Name: name, URL: func(t testing.TB) string { return URL(t, name) }})
	}
	return out
}

// Servers lists the registered databases that are servers (not files), for tests of logins,
// restarts and server-side code.
func Servers() []Target {
	var out []Target
	for _, s := range target.Registered() {
		if !s.File {
			name := s.Names[0]
			out = append(out, Target{Name: name, URL: func(t testing.TB) string { return URL(t, name) }})
		}
	}
	return out
}

// Restart returns the command that restarts the server of kind (CAIRN_TEST_PG_RESTART,
// CAIRN_TEST_MYSQL_RESTART), or skips/fails when none is configured.
func Restart(t testing.TB, kind string) string {
	t.Helper()
	env := ""
	for _, s := range target.Registered() {
		if s.Names[0] == kind && s.TestEnv != "" {
			env = s.TestEnv + "_RESTART"
		}
	}
	cmd := os.Getenv(env)
	if cmd == "" {
		if Required(kind) {
			t.Fatalf("%s is required but %s (a command that restarts the server) is not set", kind, env)
		}
		t.Skipf("set %s to a command that restarts the %s server to run this test", env, kind)
	}
	return cmd
}

// ImplicitTx opens url and returns a connection with implicit transactions switched on, and a
// second, ordinary connection that watches it. Both share the scratch table cairn_implicit_test,
// created by create (id is its primary key) and dropped when the test ends.
func ImplicitTx(t testing.TB, url, create string) (c, other target.Conn) {
	t.Helper()
	ctx := context.Background()
	tg, other := Open(t, url)
	for _, q := range []string{"DROP TABLE IF EXISTS cairn_implicit_test", create} {
		if _, err := other.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { other.Exec(ctx, "DROP TABLE cairn_implicit_test") })
	var err error
	if c, err = tg.Conn(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	it, ok := c.(target.ImplicitTx)
	if !ok {
		t.Fatalf("the %s connection does not offer implicit transactions", tg.Kind())
	}
	it.SetImplicitTx(true)
	return c, other
}

// Open opens the target at url and one connection on it. Both are closed when the test ends, after
// the cleanups the test registers later (a DROP on the connection, say), since cleanups run last
// registered first.
func Open(t testing.TB, url string) (target.Target, target.Conn) {
	t.Helper()
	ctx := context.Background()
	tg, err := target.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	c, err := tg.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return tg, c
}

// HoldLock makes another session hold row locks for a while: on a new connection of tg it starts a
// transaction, runs stmt (say, an INSERT of a key that the code under test will also write) and
// rolls back after hold. The channel receives the rollback's error. Tests of retries use it to make
// a statement fail with a lock wait timeout first and succeed on a later attempt.
func HoldLock(t testing.TB, tg target.Target, stmt string, hold time.Duration) <-chan error {
	t.Helper()
	ctx := context.Background()
	c, err := tg.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Begin(ctx, false); err != nil {
		c.Close()
		t.Fatal(err)
	}
	if _, err := c.Exec(ctx, stmt); err != nil {
		c.Close()
		t.Fatal(err)
	}
	released := make(chan error, 1)
	go func() {
		defer c.Close()
		time.Sleep(hold)
		released <- c.Rollback(ctx)
	}()
	return released
}

// Dialect returns a registered dialect by name (postgres, mysql, mariadb, sqlite).
func Dialect(t testing.TB, name string) target.Dialect {
	t.Helper()
	d, ok := target.DialectNamed(name)
	if !ok {
		t.Fatalf("no dialect %q (have %v)", name, target.Dialects())
	}
	return d
}

// PeakSessions names the sessions of the PostgreSQL URL url with an application name of their
// own and counts them in pg_stat_activity every interval, from a connection to the database
// postgres (whose statements no counter of url's database sees), until peak is called: it stops
// and returns the most seen at once. Open what is counted with named.
func PeakSessions(t testing.TB, url string, interval time.Duration) (named string, peak func() int64) {
	t.Helper()
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	app := fmt.Sprintf("cairn_peak_%d_%d", os.Getpid(), time.Now().UnixNano())
	q := u.Query()
	q.Set("application_name", app)
	u.RawQuery = q.Encode()
	named = u.String()
	q.Del("application_name")
	u.RawQuery, u.Path = q.Encode(), "/postgres"
	_, watcher := Open(t, u.String())
	var most atomic.Int64
	stop, polled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(polled)
		for {
			var n int64
			if err := watcher.QueryRow(context.Background(), "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", app).Scan(&n); err == nil && n > most.Load() {
				most.Store(n)
			}
			select {
			case <-stop:
				return
			case <-time.After(interval):
			}
		}
	}()
	var once sync.Once
	return named, func() int64 {
		once.Do(func() { close(stop); <-polled })
		return most.Load()
	}
}

// ComCount reads Com_commit + Com_rollback as MySQL's and MariaDB's SHOW GLOBAL STATUS shows them,
// on a connection of the test's own: the count a test compares cairn's TPM with.
func ComCount(t testing.TB, c target.Conn) int64 {
	t.Helper()
	rows, err := c.Query(context.Background(), "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Com_rollback')")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var sum int64
	var seen int
	for rows.Next() {
		var n string
		var v int64
		if err := rows.Scan(&n, &v); err != nil {
			t.Fatal(err)
		}
		sum += v
		seen++
	}
	if seen != 2 {
		t.Fatalf("SHOW GLOBAL STATUS shows %d of Com_commit and Com_rollback", seen)
	}
	return sum
}
