package testutil

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
)

// MariaDBs starts n MariaDB servers of the test's own, each with its own data directory under a
// temporary directory and its own port on 127.0.0.1, and stops them when the test ends. It returns
// each server's URL without a database (mysql://cairn:cairn@127.0.0.1:PORT/), user cairn with every
// privilege. Without mariadbd and mariadb-install-db it skips, or fails when CAIRN_TEST_REQUIRE
// names mysql.
func MariaDBs(t testing.TB, n int) []string {
	t.Helper()
	return mariaDBs(t, n, nil)
}

// mariaDBs is MariaDBs, server i started with extra(i)'s arguments too.
func mariaDBs(t testing.TB, n int, extra func(i int) []string) []string {
	t.Helper()
	bin, err1 := exec.LookPath("mariadbd")
	if err1 != nil {
		bin, err1 = exec.LookPath("/usr/sbin/mariadbd")
	}
	install, err2 := exec.LookPath("mariadb-install-db")
	if err1 != nil || err2 != nil {
		if Required("mysql") {
			t.Fatalf("mysql is required (CAIRN_TEST_REQUIRE) but mariadbd or mariadb-install-db is not installed")
		}
		t.Skip("mariadbd or mariadb-install-db is not installed: no MariaDB servers of the test's own")
	}
	// A short directory: a Unix socket's path must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "cairn-my")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	initSQL := filepath.Join(dir, "init.sql")
	if err := os.WriteFile(initSQL, []byte("CREATE USER IF NOT EXISTS 'cairn'@'127.0.0.1' IDENTIFIED BY 'cairn';\nGRANT ALL ON *.* TO 'cairn'@'127.0.0.1' WITH GRANT OPTION;\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// One installed data directory, copied for each server: installing takes seconds each.
	seed := filepath.Join(dir, "seed")
	args := []string{"--no-defaults", "--datadir=" + seed, "--auth-root-authentication-method=normal", "--skip-test-db"}
	if os.Geteuid() == 0 {
		args = append(args, "--user=root")
	}
	if out, err := exec.Command(install, args...).CombinedOutput(); err != nil {
		t.Fatalf("mariadb-install-db: %v\n%s", err, lastLines(out))
	}
	urls := make([]string, n)
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := 0; i < n; i++ {
		data := filepath.Join(dir, "d"+strconv.Itoa(i))
		if out, err := exec.Command("cp", "-a", seed, data).CombinedOutput(); err != nil {
			t.Fatalf("copy the data directory: %v: %s", err, out)
		}
		port := freePort(t)
		log := filepath.Join(dir, "server"+strconv.Itoa(i)+".log")
		a := []string{"--no-defaults", "--datadir=" + data, "--port=" + strconv.Itoa(port), "--bind-address=127.0.0.1",
			"--socket=" + filepath.Join(dir, "s"+strconv.Itoa(i)+".sock"), "--pid-file=" + filepath.Join(dir, "p"+strconv.Itoa(i)+".pid"),
			"--log-error=" + log, "--init-file=" + initSQL, "--innodb-buffer-pool-size=32M", "--innodb-log-file-size=16M",
			"--max-connections=500", "--skip-name-resolve", "--performance-schema=OFF"}
		if os.Geteuid() == 0 {
			a = append(a, "--user=root")
		}
		if extra != nil {
			a = append(a, extra(i)...)
		}
		cmd := exec.Command(bin, a...)
		if err := cmd.Start(); err != nil {
			t.Fatalf("start mariadbd: %v", err)
		}
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				<-done
			}
		})
		urls[i] = fmt.Sprintf("mysql://cairn:cairn@127.0.0.1:%d/", port)
		wg.Add(1)
		go func(i, port int) {
			defer wg.Done()
			errs[i] = waitGreeting(port, done, log)
		}(i, port)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return urls
}

// freePort is a port on 127.0.0.1 that nothing listens on now.
func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitGreeting waits until a server on port greets a connection.
func waitGreeting(port int, exited <-chan struct{}, log string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
		if err == nil {
			_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
			b := make([]byte, 8)
			n, _ := c.Read(b)
			c.Close()
			if n > 4 && b[4] == 10 {
				return nil
			}
		}
		select {
		case <-exited:
			out, _ := os.ReadFile(log)
			return fmt.Errorf("mariadbd on port %d exited:\n%s", port, lastLines(out))
		case <-ctx.Done():
			return fmt.Errorf("mariadbd on port %d did not greet within 60 s", port)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func lastLines(b []byte) string {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	return string(bytes.Join(lines[max(0, len(lines)-10):], []byte("\n")))
}

// Databases creates the named databases on the server of url (a URL of any database there) and
// drops them when the test ends, whatever they hold then. It returns the URL of each.
func Databases(t testing.TB, url string, names ...string) []string {
	t.Helper()
	tg, c := Open(t, url)
	ctx := context.Background()
	quote := func(n string) string { return "`" + n + "`" }
	if tg.Dialect().Base == "postgres" || tg.Kind() == "postgres" {
		quote = func(n string) string { return `"` + n + `"` }
	}
	base := url[:strings.LastIndexByte(url[:strings.IndexAny(url+"?", "?")], '/')+1]
	out := make([]string, len(names))
	for i, n := range names {
		_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+quote(n))
		if _, err := c.Exec(ctx, "CREATE DATABASE "+quote(n)); err != nil {
			t.Fatalf("create database %s: %v", n, err)
		}
		out[i] = base + n
	}
	t.Cleanup(func() {
		tg, err := target.Open(ctx, url)
		if err != nil {
			t.Errorf("drop the test's databases: %v", err)
			return
		}
		defer tg.Close()
		c, err := tg.Conn(ctx)
		if err != nil {
			t.Errorf("drop the test's databases: %v", err)
			return
		}
		defer c.Close()
		for _, n := range names {
			if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+quote(n)); err != nil {
				t.Errorf("drop database %s: %v", n, err)
			}
		}
	})
	return out
}
