package cli

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
	"github.com/cairn-bench/cairn/internal/workload"
	"github.com/cairn-bench/cairn/internal/workload/tpcc"
	"github.com/cairn-bench/cairn/internal/workload/tpch"
)

// tablesOf lists the tables of the database at url.
func tablesOf(t *testing.T, url string) map[string]bool {
	t.Helper()
	q := map[string]string{
		"sqlite":   "SELECT name FROM sqlite_master WHERE type = 'table'",
		"postgres": "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()",
		"mysql":    "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE()",
	}
	tg, c := testutil.Open(t, url)
	chain := tg.Dialect().Chain() // mariadb asks as mysql
	rows, err := c.Query(context.Background(), q[chain[len(chain)-1]])
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[strings.ToLower(n)] = true
	}
	return out
}

func execOn(t *testing.T, url string, stmts ...string) {
	t.Helper()
	_, c := testutil.Open(t, url)
	for _, q := range stmts {
		if _, err := c.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// Cleanup drops only what its own workload's record says it created: TPC-C's prepare and cleanup
// leave TPC-H's customer and orders alone, and the other workloads live beside each other.
func TestCleanupDropsOnlyItsOwn(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			url := tg.URL(t)
			for _, w := range []string{"tpcc", "tpch", "oltp", "tpcb"} {
				cairn(t, w, "cleanup", "--db", url)
			}
			t.Cleanup(func() {
				for _, w := range []string{"tpcc", "tpch", "oltp", "tpcb"} {
					cairn(t, w, "cleanup", "--db", url)
				}
			})
			if code, out, stderr := cairn(t, "tpch", "prepare", "--db", url, "--sf", "0.01"); code != 0 {
				t.Fatalf("tpch prepare: %d\n%s\n%s", code, out, stderr)
			}
			code, _, stderr := cairn(t, "tpcc", "prepare", "--db", url)
			if code != ExitUsage || !strings.Contains(stderr, "TPC-H tables customer, orders") || !strings.Contains(stderr, "cairn tpch cleanup") {
				t.Errorf("tpcc prepare over TPC-H: exit %d, %q", code, stderr)
			}
			oneCleanLine(t, stderr)
			code, out, stderr := cairn(t, "tpcc", "cleanup", "--db", url)
			if code != 0 || !strings.Contains(out, "nothing to drop") || !strings.Contains(out, "TPC-H's tables customer, orders") {
				t.Errorf("tpcc cleanup beside TPC-H: exit %d, %q %q", code, out, stderr)
			}
			if have := tablesOf(t, url); !have["customer"] || !have["orders"] {
				t.Fatalf("tpcc cleanup dropped TPC-H's tables: %v", have)
			}
			// oltp and tpcb share no names with TPC-H: they prepare beside it and clean up alone.
			for _, args := range [][]string{{"oltp", "prepare", "--tables", "2", "--table-size", "100"}, {"tpcb", "prepare"}} {
				if code, out, stderr := cairn(t, append(args, "--db", url)...); code != 0 {
					t.Fatalf("%v: %d\n%s\n%s", args, code, out, stderr)
				}
			}
			if code, out, _ := cairn(t, "oltp", "cleanup", "--db", url); code != 0 || !strings.Contains(out, "dropped") {
				t.Errorf("oltp cleanup: %d %q", code, out)
			}
			have := tablesOf(t, url)
			for _, n := range []string{"customer", "orders", "lineitem", "pgbench_accounts", "cairn_tpch_meta", "cairn_tpcb_meta"} {
				if !have[n] {
					t.Errorf("oltp cleanup dropped %s", n)
				}
			}
			if have["sbtest1"] || have["cairn_oltp_meta"] {
				t.Errorf("oltp cleanup left its own tables: %v", have)
			}
			_, c := testutil.Open(t, url)
			ttg, _ := testutil.Open(t, url)
			if _, _, err := tpch.LoadMeta(context.Background(), ttg, c); err != nil {
				t.Errorf("TPC-H is no longer complete after the other cleanups: %v", err)
			}
		})
	}
}

// Tables of cairn's names that no cairn prepare created (pgbench -i's, sysbench's, a user's own
// customer) stand in a prepare's way and are never dropped.
func TestForeignTablesAreNeverDropped(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			url := tg.URL(t)
			for _, w := range []string{"tpcc", "tpch", "oltp", "tpcb"} {
				cairn(t, w, "cleanup", "--db", url)
			}
			foreign := []string{"customer", "pgbench_accounts", "sbtest1"}
			for _, n := range foreign {
				execOn(t, url, "DROP TABLE IF EXISTS "+n, "CREATE TABLE "+n+" (id INTEGER PRIMARY KEY)")
			}
			t.Cleanup(func() {
				for _, n := range foreign {
					execOn(t, url, "DROP TABLE IF EXISTS "+n)
				}
			})
			for _, c := range []struct {
				args []string
				name string
			}{{[]string{"tpcc", "prepare"}, "customer"}, {[]string{"tpch", "prepare", "--sf", "0.01"}, "customer"},
				{[]string{"tpcb", "prepare"}, "pgbench_accounts"}, {[]string{"oltp", "prepare", "--tables", "1", "--table-size", "10"}, "sbtest1"}} {
				code, _, stderr := cairn(t, append(c.args, "--db", url)...)
				if code != ExitUsage || !strings.Contains(stderr, c.name) || !strings.Contains(stderr, "cairn did not create") {
					t.Errorf("%v over a foreign %s: exit %d, %q", c.args, c.name, code, stderr)
				}
				oneCleanLine(t, stderr)
			}
			for _, w := range []string{"tpcc", "tpch", "oltp", "tpcb"} {
				if code, out, _ := cairn(t, w, "cleanup", "--db", url); code != 0 || !strings.Contains(out, "nothing to drop") {
					t.Errorf("%s cleanup: exit %d, %q", w, code, out)
				}
			}
			have := tablesOf(t, url)
			for _, n := range foreign {
				if !have[n] {
					t.Errorf("a cleanup dropped the foreign table %s", n)
				}
			}
		})
	}
}

// A partial schema is one whose own meta says its prepare did not finish; cleanup drops exactly
// what that prepare recorded, and check and run say it is partial.
func TestPartialSchemaByItsOwnRecord(t *testing.T) {
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			url := tg.URL(t)
			cairn(t, "tpcc", "cleanup", "--db", url)
			execOn(t, url, "DROP TABLE IF EXISTS item", "CREATE TABLE item (i_id INTEGER PRIMARY KEY)")
			t.Cleanup(func() {
				execOn(t, url, "DROP TABLE IF EXISTS item", "DROP TABLE IF EXISTS warehouse")
				cairn(t, "tpcc", "cleanup", "--db", url)
			})
			// A prepare that recorded and created warehouse, then stopped; item is someone else's.
			ttg, c := testutil.Open(t, url)
			ctx := context.Background()
			s, err := workload.Inspect(ctx, c, ttg, tpcc.Footprint)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Begin(ctx, c, []workload.Object{workload.Table("warehouse")}); err != nil {
				t.Fatal(err)
			}
			if err := s.Create(ctx, c, workload.Table("warehouse"), "CREATE TABLE warehouse (w_id INTEGER PRIMARY KEY)"); err != nil {
				t.Fatal(err)
			}
			for _, cmd := range []string{"check", "run"} {
				code, _, stderr := cairn(t, "tpcc", cmd, "--db", url, "--duration", "1s")
				if cmd == "check" {
					code, _, stderr = cairn(t, "tpcc", cmd, "--db", url)
				}
				if code != ExitUsage || !strings.Contains(stderr, "partial TPC-C schema") || !strings.Contains(stderr, "cairn tpcc cleanup") {
					t.Errorf("tpcc %s on a partial schema: exit %d, %q", cmd, code, stderr)
				}
			}
			code, out, _ := cairn(t, "tpcc", "cleanup", "--db", url)
			if code != 0 || !strings.Contains(out, "1 table") || !strings.Contains(out, "item, which cairn did not create") {
				t.Errorf("cleanup of a partial schema: exit %d, %q", code, out)
			}
			have := tablesOf(t, url)
			if have["warehouse"] || have["cairn_tpcc_meta"] || !have["item"] {
				t.Errorf("after cleanup: %v (want warehouse and the meta table gone, item kept)", have)
			}
		})
	}
}

// The messages name the database (host:port/dbname), not only the server.
func TestMessagesNameTheDatabase(t *testing.T) {
	url := testutil.PG(t)
	tg, err := target.Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	where := target.Where(tg)
	tg.Close()
	if !strings.Contains(where, "/") {
		t.Fatalf("Where = %q: no database name", where)
	}
	cairn(t, "tpcb", "cleanup", "--db", url)
	code, _, stderr := cairn(t, "tpcb", "run", "--db", url, "--duration", "1s")
	if code != ExitUsage || !strings.Contains(stderr, where) {
		t.Errorf("tpcb run without a schema: exit %d, %q does not name %s", code, stderr, where)
	}
}

// A prepare or run --prepare that asks for another size than the complete schema has is refused,
// naming what is there, what was asked and the way out; without the size it uses what is there.
func TestAskedSizesAreNeverIgnored(t *testing.T) {
	url, other := testutil.SQLite(t), testutil.SQLite(t) // TPC-H shares table names with TPC-C
	for _, c := range []struct {
		prepare, again []string
		have, asked    string
	}{
		{[]string{"tpcc", "prepare", "-w", "1"}, []string{"tpcc", "prepare", "-w", "2"}, "1 warehouse", "2 warehouses"},
		{nil, []string{"tpcc", "run", "--prepare", "-w", "3", "--duration", "1s"}, "1 warehouse", "3 warehouses"},
		{[]string{"oltp", "prepare", "--tables", "1", "--table-size", "10"}, []string{"oltp", "prepare", "--tables", "3"}, "1 table", "3 tables"},
		{nil, []string{"oltp", "prepare", "--table-size", "20"}, "10 rows per table", "20 rows per table"},
		{[]string{"tpcb", "prepare"}, []string{"tpcb", "prepare", "-s", "2"}, "scale 1", "scale 2"},
		{[]string{"tpch", "prepare", "--sf", "0.01"}, []string{"tpch", "prepare", "--sf", "0.1"}, "SF 0.01", "SF 0.1"},
	} {
		if c.again[0] == "tpch" {
			url = other
		}
		if c.prepare != nil {
			if code, out, stderr := cairn(t, append(c.prepare, "--db", url)...); code != 0 {
				t.Fatalf("%v: %d\n%s%s", c.prepare, code, out, stderr)
			}
			// Without a size, prepare takes what is there.
			if code, out, _ := cairn(t, c.prepare[0], "prepare", "--db", url); code != 0 || !strings.Contains(out, "nothing to do") {
				t.Errorf("%s prepare without a size: exit %d, %q", c.prepare[0], code, out)
			}
		}
		code, _, stderr := cairn(t, append(c.again, "--db", url)...)
		if code != ExitUsage || !strings.Contains(stderr, c.have) || !strings.Contains(stderr, c.asked) || !strings.Contains(stderr, "cleanup") {
			t.Errorf("%v over %s: exit %d, %q", c.again, c.have, code, stderr)
		}
		oneCleanLine(t, stderr)
	}
}

// A password never reaches output, the store, the --json file, an export or a report, wherever it
// sits in the URL, nor an error about a URL that does not parse.
func TestPasswordNeverShown(t *testing.T) {
	const secret = "S3cretPW-7e1"
	pg := testutil.PG(t)
	execOn(t, pg, "DROP ROLE IF EXISTS cairn_secret_test", "CREATE ROLE cairn_secret_test LOGIN SUPERUSER PASSWORD '"+secret+"'")
	t.Cleanup(func() { execOn(t, pg, "DROP ROLE IF EXISTS cairn_secret_test") })
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	store, js, html, png := filepath.Join(dir, "r.db"), filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html"), filepath.Join(dir, "png")
	var all strings.Builder
	run := func(args ...string) {
		t.Helper()
		code, out, stderr := cairn(t, args...)
		all.WriteString(out + stderr)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args[:2], code, out, stderr)
		}
	}
	for i, db := range []string{
		fmt.Sprintf("postgres://cairn_secret_test@%s%s?password=%s&sslmode=disable", u.Host, u.Path, secret),
		fmt.Sprintf("postgres://cairn_secret_test:%s@%s%s", secret, u.Host, u.Path),
	} {
		cairn(t, "tpcb", "cleanup", "--db", db)
		run("tpcb", "prepare", "--db", db)
		run("tpcb", "run", "--db", db, "--duration", "1s", "--rampup", "0s", "--progress", "1s", "--results", store, "--json", js)
		run("tpcb", "profile", "--db", db, "--vu", "1,2", "--duration", "1s", "--rampup", "0s", "--pause", "0s", "--results", store)
		run("tpcb", "cleanup", "--db", db)
		id := fmt.Sprint(2*i + 1)
		run("results", "show", id, "--results", store)
		run("results", "export", id, "--results", store)
		run("results", "list", "--results", store)
		run("report", id, fmt.Sprint(2*i+2), "-o", html, "--png", png, "--results", store)
		for _, f := range []string{store, js, html} {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds the password (URL form %d)", filepath.Base(f), i+1)
			}
		}
	}
	if strings.Contains(all.String(), secret) {
		t.Errorf("the output shows the password:\n%s", all.String())
	}
	for _, bad := range []string{"mysql://cairn:" + secret + "@127.0.0.1:abc/db", "postgres://u:" + secret + "%zz@127.0.0.1/db",
		"postgres://u:" + secret + "@[::1/db", "postgres://u@127.0.0.1/db?password=" + secret + "&nosuch=1"} {
		code, out, stderr := cairn(t, "tpcc", "run", "--db", bad)
		if code != ExitUsage || strings.Contains(out+stderr, secret) {
			t.Errorf("--db %s: exit %d, %q", target.Redact(bad), code, stderr)
		}
	}
}

// A password read from the environment (${VAR} in --db, or in a spec's db) may hold any character:
// cairn percent-encodes it into the URL's userinfo, and shows it nowhere. On PostgreSQL the user
// prepares, runs from flags and from a spec, and cleans up; on MariaDB, where the test's account
// cannot grant privileges, the user logs in to information_schema, where cleanup finds nothing to
// drop and a run from a spec finds no schema, both after the login.
func TestPasswordFromTheEnvironment(t *testing.T) {
	const secret = "pw/1#2?3%4 5@6:7"
	t.Setenv("CAIRN_TEST_PW", secret)
	for _, srv := range testutil.Servers() {
		t.Run(srv.Name, func(t *testing.T) {
			admin := srv.URL(t)
			u, err := url.Parse(admin)
			if err != nil {
				t.Fatal(err)
			}
			path := u.Path
			type step struct {
				args []string
				code int
				want string
			}
			steps := []step{
				{[]string{"oltp", "cleanup", "--db", "DB"}, 0, ""},
				{[]string{"oltp", "prepare", "--db", "DB", "--tables", "1", "--table-size", "100"}, 0, ""},
				{[]string{"oltp", "run", "--db", "DB", "--vu", "1", "--rampup", "0s", "--duration", "1s", "--no-store"}, 0, "TPS"},
				{[]string{"run", "--spec", "SPEC", "--no-store"}, 0, "TPS"},
				{[]string{"oltp", "cleanup", "--db", "DB"}, 0, "dropped"},
			}
			if srv.Name == "mysql" {
				execOn(t, admin, "DROP USER IF EXISTS cairn_pw_test", "CREATE USER cairn_pw_test IDENTIFIED BY '"+secret+"'")
				t.Cleanup(func() { execOn(t, admin, "DROP USER IF EXISTS cairn_pw_test") })
				path = "/information_schema"
				steps = []step{{[]string{"oltp", "cleanup", "--db", "DB"}, 0, "nothing to drop"},
					{[]string{"run", "--spec", "SPEC", "--no-store"}, ExitUsage, "holds no sysbench-style OLTP schema"}}
			} else {
				execOn(t, admin, "DROP ROLE IF EXISTS cairn_pw_test", "CREATE ROLE cairn_pw_test LOGIN SUPERUSER PASSWORD '"+secret+"'")
				// DROP OWNED: the tables a failed step left behind.
				t.Cleanup(func() { execOn(t, admin, "DROP OWNED BY cairn_pw_test", "DROP ROLE cairn_pw_test") })
			}
			db := srv.Name + "://cairn_pw_test:${CAIRN_TEST_PW}@" + u.Host + path
			specFile := filepath.Join(t.TempDir(), "run.yaml")
			if err := os.WriteFile(specFile, []byte("workload: oltp\ndb: "+db+"\nvu: 1\nrampup: 0s\nduration: 1s\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			var all strings.Builder
			for _, st := range steps {
				args := append([]string(nil), st.args...)
				for i, a := range args {
					args[i] = strings.NewReplacer("DB", db, "SPEC", specFile).Replace(a)
				}
				code, out, stderr := cairn(t, args...)
				all.WriteString(out + stderr)
				if code != st.code || !strings.Contains(out+stderr, st.want) {
					t.Fatalf("%v: exit %d, want %d and %q\n%s%s", st.args[:2], code, st.code, st.want, out, stderr)
				}
			}
			for _, s := range []string{secret, url.QueryEscape(secret), url.PathEscape(secret), url.UserPassword("", secret).String()} {
				if strings.Contains(all.String(), s) {
					t.Errorf("the output shows the password as %q:\n%s", s, all.String())
				}
			}
		})
	}
}
