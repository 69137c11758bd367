package cli

import (
	"context"
	"net/url"
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
