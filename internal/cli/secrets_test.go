package cli

import (
	"bytes"
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/testutil"
)

// A PostgreSQL login whose password holds # % @ / ? : " ' logs in when the password is given as
// ${VAR}, in the userinfo or in ?password=, or percent-encoded in the URL; written raw in
// ?password= it is refused; and no message of any of these shows a piece of it.
func TestQueryPasswordWithSpecials(t *testing.T) {
	admin := testutil.PG(t)
	const pw = `Qp1#Kx2%Zw3@Vy4/Ju5?Hn6:Gm7"Fl8'Ek9`
	pieces := []string{"Qp1", "Kx2", "Zw3", "Vy4", "Ju5", "Hn6", "Gm7", "Fl8", "Ek9"}
	user := "cairn_qpw_test"
	_, c := testutil.Open(t, admin)
	ctx := context.Background()
	c.Exec(ctx, "DROP ROLE IF EXISTS "+user)
	if _, err := c.Exec(ctx, "CREATE ROLE "+user+" LOGIN PASSWORD '"+strings.ReplaceAll(pw, "'", "''")+"'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_, c := testutil.Open(t, admin)
		c.Exec(context.Background(), "DROP ROLE IF EXISTS "+user)
	})
	t.Setenv("CAIRN_QPW_TEST", pw)
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatal(err)
	}
	base := "postgres://" + user + "@" + u.Host
	hidden := func(what, said string) {
		t.Helper()
		for _, p := range pieces {
			if strings.Contains(said, p) {
				t.Errorf("%s shows %s of the password: %s", what, p, said)
			}
		}
	}
	for _, db := range []string{
		base + u.Path + "?password=${CAIRN_QPW_TEST}",
		base + u.Path + "?sslmode=disable&password=${CAIRN_QPW_TEST}",
		"postgres://" + user + ":${CAIRN_QPW_TEST}@" + u.Host + u.Path,
		base + u.Path + "?password=" + url.QueryEscape(pw),
	} {
		code, out, stderr := cairn(t, "study", "restore", "--db", db)
		if code != 0 || !strings.Contains(out, "nothing to restore") {
			t.Errorf("--db %s: exit %d %s %s", db, code, out, stderr)
		}
		hidden(db, out+stderr)
		// Failing after the login: the database is missing.
		missing := strings.Replace(db, u.Path, "/cairn_no_such_db", 1)
		code, out, stderr = cairn(t, "study", "restore", "--db", missing)
		if code == 0 || !strings.Contains(stderr, "does not exist") {
			t.Errorf("--db %s: exit %d %s %s", missing, code, out, stderr)
		}
		hidden(missing, out+stderr)
		oneCleanLine(t, stderr)
		// Failing before: a parameter refused.
		code, out, stderr = cairn(t, "study", "restore", "--db", db+"&sslmode=sometimes")
		if code != ExitUsage {
			t.Errorf("a bad sslmode: exit %d %s", code, stderr)
		}
		hidden("a bad sslmode", out+stderr)
	}
	// The server checks the password: a wrong one does not log in (else nothing above is proved).
	t.Setenv("CAIRN_QPW_WRONG", pw[:len(pw)-1])
	code, out, stderr := cairn(t, "study", "restore", "--db", base+u.Path+"?password=${CAIRN_QPW_WRONG}")
	if code == 0 || !strings.Contains(stderr, "login failed") {
		t.Errorf("a wrong password: exit %d %s %s (does the server trust every login?)", code, out, stderr)
	}
	hidden("a wrong password", out+stderr)
	for _, db := range []string{base + u.Path + "?password=" + pw, base + u.Path + "?sslmode=disable&password=" + pw} {
		code, out, stderr := cairn(t, "study", "restore", "--db", db)
		if code != ExitUsage {
			t.Errorf("the password written raw: exit %d %s %s", code, out, stderr)
		}
		hidden("the password written raw", out+stderr)
		oneCleanLine(t, stderr)
	}
}

// The results store is never a benchmark's database: named as it is, through a symbolic link or
// another spelling of its path, it is refused before anything is written to it, and it stays a
// store that lists its results.
func TestResultsStoreIsNoTarget(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "results.db")
	bench := testutil.SQLite(t)
	if code, _, stderr := cairn(t, "tpcb", "prepare", "--db", bench, "--results", store); code != 0 {
		t.Fatalf("prepare: %s", stderr)
	}
	if code, _, stderr := cairn(t, "tpcb", "run", "--db", bench, "--duration", "1s", "--rampup", "0s", "--results", store); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	link := filepath.Join(t.TempDir(), "link.db")
	if err := os.Symlink(store, link); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range []string{"sqlite://" + store, "sqlite://" + link, "sqlite://" + dir + "/../" + filepath.Base(dir) + "/results.db"} {
		for _, cmd := range []string{"prepare", "run", "cleanup"} {
			code, _, stderr := cairn(t, "tpcb", cmd, "--db", db, "--results", store)
			if code != ExitUsage || !strings.Contains(stderr, "is cairn's results store") {
				t.Errorf("tpcb %s --db %s: exit %d %s", cmd, db, code, stderr)
			}
			oneCleanLine(t, stderr)
		}
	}
	// Through the default store too ($CAIRN_RESULTS), and not yet created.
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	t.Setenv("CAIRN_RESULTS", fresh)
	if code, _, stderr := cairn(t, "tpcb", "prepare", "--db", "sqlite://"+fresh); code != ExitUsage {
		t.Errorf("prepare into the store not yet made: exit %d %s", code, stderr)
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Error("the refused prepare made the store's file")
	}
	after, _ := os.ReadFile(store)
	if !bytes.Equal(before, after) {
		t.Error("the refused commands changed the store")
	}
	code, out, stderr := cairn(t, "results", "list", "--results", store)
	if code != 0 || !strings.Contains(out, "tpcb") {
		t.Errorf("results list: exit %d %s %s", code, out, stderr)
	}
	tables := tablesOf(t, "sqlite://"+store)
	for _, tb := range []string{"pgbench_accounts", "pgbench_branches"} {
		if tables[tb] {
			t.Errorf("the store holds %s", tb)
		}
	}
}
