package cli

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// silentListener accepts connections on loopback and never says anything.
func silentListener(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	return l.Addr().String()
}

// A URL that points at the wrong thing says in one line, exit 1, what answered there (or that
// nothing did), within the connect timeout and a second of asking.
func TestWrongPort(t *testing.T) {
	httpSrv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(httpSrv.Close)
	httpAddr := strings.TrimPrefix(httpSrv.URL, "http://")
	silent := silentListener(t)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := closed.Addr().String()
	closed.Close()
	pg, err := url.Parse(testutil.PG(t))
	if err != nil {
		t.Fatal(err)
	}
	my, err := url.Parse(testutil.MySQL(t))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		scheme, addr, want string
	}{
		{"postgres", my.Host, "it answered, but not as a PostgreSQL server: it looks like a MySQL or MariaDB server, version "},
		{"mysql", pg.Host, "it answered, but not as a MySQL/MariaDB server: it looks like PostgreSQL"},
		{"postgres", httpAddr, "it answered, but not as a PostgreSQL server: it looks like an HTTP server: HTTP/1.1 400 Bad Request"},
		{"mysql", httpAddr, "it answered, but not as a MySQL/MariaDB server: it looks like an HTTP server: HTTP/1.1 400 Bad Request"},
		{"postgres", silent, "the connection was accepted but nothing answered as a PostgreSQL server within 1s"},
		{"mysql", silent, "the connection was accepted but nothing answered as a MySQL/MariaDB server within 1s"},
		{"postgres", refused, "connection refused: nothing listens there"},
		{"mysql", refused, "connection refused: nothing listens there"},
	}
	for _, c := range cases {
		db := c.scheme + "://cairn:S3cretPW@" + c.addr + "/cairn_test"
		for _, args := range [][]string{
			{"tpcb", "cleanup", "--db", db, "--connect-timeout", "1s"},
			{"tpcb", "run", "--db", db, "--connect-timeout", "1s", "--duration", "1s"},
		} {
			start := time.Now()
			code, out, stderr := cairn(t, args...)
			took := time.Since(start)
			if code != ExitFailed || !strings.Contains(stderr, "cannot connect to ") || !strings.Contains(stderr, c.want) {
				t.Errorf("%s %s at %s: exit %d, want %d and %q:\n%s%s", args[0], args[1], c.addr, code, ExitFailed, c.want, out, stderr)
			}
			oneCleanLine(t, stderr)
			if strings.Contains(stderr, "S3cretPW") {
				t.Errorf("the message shows the password: %s", stderr)
			}
			if took > 4*time.Second {
				t.Errorf("%s %s at %s took %s with --connect-timeout 1s", args[0], args[1], c.addr, took.Round(time.Millisecond))
			}
		}
	}
	// A run spec carries the timeout too.
	specFile := filepath.Join(t.TempDir(), "run.yaml")
	if err := os.WriteFile(specFile, []byte("workload: tpcb\ndb: mysql://cairn@"+silent+"/cairn_test\nconnect-timeout: 2s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := cairn(t, "run", "--spec", specFile)
	if code != ExitFailed || !strings.Contains(stderr, "nothing answered as a MySQL/MariaDB server within 2s") {
		t.Errorf("run --spec with connect-timeout 2s: exit %d %s", code, stderr)
	}
	code, _, stderr = cairn(t, "tpcb", "cleanup", "--db", "mysql://cairn@"+silent+"/cairn_test", "--connect-timeout", "0s")
	if code != ExitUsage {
		t.Errorf("--connect-timeout 0s: exit %d %s", code, stderr)
	}
	// Studies and the restores connect within the timeout too: a study's from its file (--set),
	// the restores' from --connect-timeout. A server a study cannot reach is the user's to fix.
	silentDB := "mysql://cairn@" + silent + "/cairn_test"
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"study", "plan", "../../studies/ci/spin-wait-delay-live.yaml", "--set", "db=" + silentDB, "--set", "connect-timeout=1s"}, ExitUsage},
		{[]string{"study", "run", "../../studies/ci/spin-wait-delay-live.yaml", "--set", "db=" + silentDB, "--set", "connect-timeout=1s", "--no-store"}, ExitUsage},
		{[]string{"study", "restore", "--db", silentDB, "--connect-timeout", "1s"}, ExitUsage},
	} {
		start := time.Now()
		code, out, stderr := cairn(t, c.args...)
		took := time.Since(start)
		if code != c.code || !strings.Contains(stderr, "nothing answered as a MySQL/MariaDB server within 1s") || took > 4*time.Second {
			t.Errorf("%v: exit %d in %s, want %d within 4s naming the 1s timeout:\n%s%s", c.args[:2], code, took.Round(time.Millisecond), c.code, out, stderr)
		}
	}
	if code, _, stderr := cairn(t, "restore", "--db", silentDB, "--connect-timeout", "0s"); code != ExitUsage {
		t.Errorf("restore --connect-timeout 0s: exit %d %s", code, stderr)
	}
}
