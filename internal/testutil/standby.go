package testutil

import (
	"context"
	"fmt"
	neturl "net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-bench/cairn/internal/target"
)

// PGStandby starts a PostgreSQL hot standby of the server of primaryURL (a server on loopback,
// whose user may open replication connections: a superuser, or a role with REPLICATION, and a
// pg_hba.conf line for `replication` from 127.0.0.1, which Debian's and initdb's defaults have):
// pg_basebackup -R into a temporary directory, then the server on a free port of 127.0.0.1. It
// returns the standby's URL for the database of dbURL (a database of the primary), once that
// database is there, and stops and removes the standby when the test ends. It skips without the
// server's binaries (fails when CAIRN_TEST_REQUIRE names postgres). As root, the standby runs as
// the postgres user, as the server refuses root.
func PGStandby(t testing.TB, primaryURL, dbURL string) string {
	t.Helper()
	ctx := context.Background()
	u, err := neturl.Parse(primaryURL)
	if err != nil {
		t.Fatal(err)
	}
	host := u.Hostname()
	if host != "127.0.0.1" && host != "localhost" && host != "::1" {
		t.Skipf("the primary %s is not on loopback: the test's standby streams from a server of this host", u.Host)
	}
	tg, c := Open(t, primaryURL)
	var major int
	if err := c.QueryRow(ctx, "SELECT current_setting('server_version_num')::int / 10000").Scan(&major); err != nil {
		t.Fatal(err)
	}
	bin := fmt.Sprintf("/usr/lib/postgresql/%d/bin", major)
	for _, b := range []string{"postgres", "pg_basebackup", "pg_ctl"} {
		if _, err := os.Stat(filepath.Join(bin, b)); err != nil {
			if Required("postgres") {
				t.Fatalf("postgres is required (CAIRN_TEST_REQUIRE) but %s/%s is not installed: the test starts a standby of its own", bin, b)
			}
			t.Skipf("%s/%s is not installed: no standby of the test's own", bin, b)
		}
	}
	// The standby needs at least the primary's values of these to run hot.
	var must []string
	for _, name := range []string{"max_connections", "max_worker_processes", "max_wal_senders", "max_prepared_transactions", "max_locks_per_transaction"} {
		var v string
		if err := c.QueryRow(ctx, "SELECT current_setting($1)", name).Scan(&v); err != nil {
			t.Fatal(err)
		}
		must = append(must, name+" = "+v)
	}
	_ = tg

	// A short directory: the Unix socket's path must fit in 108 bytes.
	dir, err := os.MkdirTemp("", "cairn-pgs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// as runs a command as the user the server runs as.
	as := func(name string, args ...string) *exec.Cmd { return exec.Command(name, args...) }
	if os.Geteuid() == 0 {
		pu, err := user.Lookup("postgres")
		if err != nil {
			t.Skipf("running as root and there is no postgres user to run the standby as: %v", err)
		}
		uid, _ := strconv.Atoi(pu.Uid)
		gid, _ := strconv.Atoi(pu.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		as = func(name string, args ...string) *exec.Cmd {
			return exec.Command("runuser", append([]string{"-u", "postgres", "--", name}, args...)...)
		}
	}
	data := filepath.Join(dir, "data")
	pass, _ := u.User.Password()
	backup := as(filepath.Join(bin, "pg_basebackup"), "-h", host, "-p", u.Port(), "-U", u.User.Username(),
		"-D", data, "-R", "-X", "stream", "-c", "fast", "--no-sync")
	backup.Env = append(os.Environ(), "PGPASSWORD="+pass) // runuser -u keeps the environment
	if out, err := backup.CombinedOutput(); err != nil {
		t.Fatalf("pg_basebackup from %s: %v\n%s", u.Host, err, lastLines(out))
	}
	port := freePort(t)
	conf := strings.Join(append(must,
		"port = "+strconv.Itoa(port), "listen_addresses = '127.0.0.1'", "unix_socket_directories = '"+dir+"'",
		"hot_standby = on", "shared_buffers = 64MB", "ssl = off", "logging_collector = off", "archive_mode = off",
		"cluster_name = ''", "hba_file = '"+filepath.Join(dir, "hba.conf")+"'", "ident_file = '"+filepath.Join(dir, "ident.conf")+"'",
		"fsync = off", "synchronous_commit = off"), "\n") + "\n"
	// After whatever the primary's data directory held (initdb's postgresql.conf): the last wins.
	write := func(path, text string, appendTo bool) {
		flag := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
		if appendTo {
			flag = os.O_CREATE | os.O_WRONLY | os.O_APPEND
		}
		f, err := os.OpenFile(path, flag, 0o644)
		if err == nil {
			_, err = f.WriteString(text)
			f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "hba.conf"), "local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\nhost all all 127.0.0.1/32 md5\n", false)
	write(filepath.Join(dir, "ident.conf"), "", false)
	// The configuration files are written by this process: the server's user must read them.
	if os.Geteuid() == 0 {
		for _, f := range []string{"hba.conf", "ident.conf"} {
			if out, err := exec.Command("chown", "postgres:postgres", filepath.Join(dir, f)).CombinedOutput(); err != nil {
				t.Fatalf("chown: %v %s", err, out)
			}
		}
	}
	if out, err := as("sh", "-c", "cat >> "+filepath.Join(data, "postgresql.conf")+" <<'EOF'\n"+conf+"EOF\n").CombinedOutput(); err != nil {
		t.Fatalf("configure the standby: %v %s", err, out)
	}
	log := filepath.Join(dir, "log")
	if out, err := as(filepath.Join(bin, "pg_ctl"), "-D", data, "-l", log, "-w", "-t", "120", "start").CombinedOutput(); err != nil {
		text, _ := os.ReadFile(log)
		t.Fatalf("start the standby: %v %s\n%s", err, out, lastLines(text))
	}
	t.Cleanup(func() {
		if out, err := as(filepath.Join(bin, "pg_ctl"), "-D", data, "-w", "-t", "60", "-m", "fast", "stop").CombinedOutput(); err != nil {
			t.Errorf("stop the standby: %v %s", err, out)
		}
	})
	d, err := neturl.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	d.Host = "127.0.0.1:" + strconv.Itoa(port)
	url := d.String()
	// The database is there once the standby has replayed its creation.
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := target.Open(ctx, url)
		if err == nil {
			st.Close()
			return url
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby on port %d does not serve %s after 60 s: %v", port, d.Path, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// CaughtUp waits until the standby at standbyURL has replayed everything the primary at
// primaryURL has written so far.
func CaughtUp(t testing.TB, primaryURL, standbyURL string) {
	t.Helper()
	ctx := context.Background()
	_, p := Open(t, primaryURL)
	_, s := Open(t, standbyURL)
	var lsn string
	if err := p.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&lsn); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		var done bool
		if err := s.QueryRow(ctx, "SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn", lsn).Scan(&done); err != nil {
			t.Fatal(err)
		}
		if done {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the standby has not replayed up to %s after 60 s", lsn)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
