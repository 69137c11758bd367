package mysql_test

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// A URL parameter never reaches the server as SQL: the driver sends unknown DSN parameters as SET
// statements, so ?password=PASSWORD('New') used to change the account's password and
// ?autocommit=(select 1) ran a subquery. Each URL below is refused with a usage error, and the
// account still logs in with its old password afterwards.
func TestURLParametersRunNoSQL(t *testing.T) {
	ctx := context.Background()
	_, admin := testutil.Open(t, testutil.MySQL(t))
	for _, q := range []string{"DROP USER IF EXISTS 'cairn_url_test'@'127.0.0.1'",
		"CREATE USER 'cairn_url_test'@'127.0.0.1' IDENTIFIED BY 'Old'"} {
		if _, err := admin.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { admin.Exec(ctx, "DROP USER IF EXISTS 'cairn_url_test'@'127.0.0.1'") })
	base, err := url.Parse(testutil.MySQL(t))
	if err != nil {
		t.Fatal(err)
	}
	as := func(pw, query string) string {
		u := *base
		u.User = url.UserPassword("cairn_url_test", pw)
		u.Host = "127.0.0.1:" + base.Port()
		u.Path = "/information_schema" // which every account may use: granting needs GRANT OPTION
		u.RawQuery = query
		return u.String()
	}
	for _, q := range []string{"password=PASSWORD('New')", "autocommit=(select+1)", "old_passwords=1",
		"sql_mode=(SELECT+'')", "charset=utf8mb4%2C(select+1)"} {
		tg, err := target.Open(ctx, as("Old", q))
		if err == nil {
			tg.Close()
		}
		var ue *target.URLError
		if !errors.As(err, &ue) {
			t.Errorf("?%s: want a usage error, got %v", q, err)
		}
	}
	tg, err := target.Open(ctx, as("Old", ""))
	if err != nil {
		t.Fatalf("the account no longer logs in with its old password: %v", err)
	}
	tg.Close()
	if tg, err := target.Open(ctx, as("New", "")); err == nil {
		tg.Close()
		t.Fatal("the account's password was changed by a URL parameter")
	}
}
