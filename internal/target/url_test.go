package target_test

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	_ "github.com/cairn-bench/cairn/internal/target/all"
)

func TestParseURL(t *testing.T) {
	good := map[string]string{
		"sqlite://cairn.db":                    "sqlite",
		"sqlite3:///tmp/x.db":                  "sqlite",
		"postgres://u:p@127.0.0.1:5432/db":     "postgres",
		"postgresql://u@localhost/db":          "postgres",
		"postgres://u@[::1]:5432/db":           "postgres",
		"mysql://u:p@127.0.0.1:3306/db":        "mysql",
		"mariadb://u:p@127.0.0.1/db?tls=false": "mysql",
		"":                                     "sqlite",
	}
	for raw, scheme := range good {
		u, err := target.ParseURL(raw)
		if err != nil || u.Scheme != scheme {
			t.Errorf("ParseURL(%q) = %v, %v; want scheme %s", raw, u.Scheme, err, scheme)
		}
	}
	u, _ := target.ParseURL("sqlite:///tmp/x.db")
	if u.Path != "/tmp/x.db" {
		t.Errorf("absolute sqlite path %q", u.Path)
	}
	u, _ = target.ParseURL("sqlite://rel/x.db")
	if u.Path != "rel/x.db" {
		t.Errorf("relative sqlite path %q", u.Path)
	}
	for _, raw := range []string{"foo", "redis://h/db", "postgres://u:p@/db", "postgres://u:p@h:54x2/db",
		"mysql://u:p@h:3306", "sqlite://", "postgres://u:p@h:5432/%zz", "postgres://u:p@h:99999/db"} {
		_, err := target.ParseURL(raw)
		var ue *target.URLError
		if !errors.As(err, &ue) {
			t.Errorf("ParseURL(%q): want a usage error, got %v", raw, err)
		}
	}
}

// A password is masked wherever it sits: the userinfo, a password-like query parameter, and in URLs
// that do not parse at all.
func TestRedact(t *testing.T) {
	for raw, want := range map[string]string{
		"postgres://u:secret@h/db":                               "postgres://u:xxxxx@h/db",
		"postgres://u@h/db?password=S3cretPW&sslmode=disable":    "postgres://u@h/db?password=xxxxx&sslmode=disable",
		"postgres://u@h/db?sslmode=require&sslpassword=S3cretPW": "postgres://u@h/db?sslmode=require&sslpassword=xxxxx",
		"mysql://u@h/db?passwd=S3cretPW":                         "mysql://u@h/db?passwd=xxxxx",
		"mysql://cairn:S3cretPW@127.0.0.1:abc/db":                "mysql://cairn:xxxxx@127.0.0.1:abc/db",
		"postgres://u:S3cret%zzPW@h/db":                          "postgres://u:xxxxx@h/db",
		"postgres://u:S3cretPW@[::1/db":                          "postgres://u:xxxxx@[::1/db",
		"postgres://u:S3cr@tPW@h/db":                             "postgres://u:xxxxx@h/db",
		"postgres://u@h/db?Pass%77ord=S3cretPW":                  "postgres://u@h/db?Pass%77ord=xxxxx",
		"sqlite://cairn.db":                                      "sqlite://cairn.db",
	} {
		if got := target.Redact(raw); got != want {
			t.Errorf("Redact(%q) = %q, want %q", raw, got, want)
		}
	}
}

// No error ParseURL returns quotes a password, whatever made the URL bad.
func TestParseURLErrorsHideThePassword(t *testing.T) {
	for _, raw := range []string{
		"mysql://cairn:S3cretPW@127.0.0.1:abc/db",
		"postgres://u:S3cretPW%zz@127.0.0.1/db",
		"postgres://u:S3cretPW@[::1/db",
		"postgres://u:S3cretPW@127.0.0.1:5432",
		"postgres://u:S3cretPW@/db",
		"redis://u:S3cretPW@h/db",
		"postgres://u@127.0.0.1/db?password=S3cretPW&nosuch=1",
		"postgres://u@127.0.0.1/db?password=S3cretPW&sslmode=bogus",
		"mysql://u@127.0.0.1/db?password=S3cretPW&autocommit=(select+1)",
		"S3cretPW",
	} {
		_, err := target.ParseURL(raw)
		if err == nil {
			t.Errorf("ParseURL(%q) accepted a bad URL", raw)
			continue
		}
		if strings.Contains(err.Error(), "S3cretPW") {
			t.Errorf("ParseURL(%q) error shows the password: %v", raw, err)
		}
	}
}

// Only the documented parameters are accepted, per scheme; MySQL's driver would send any other as a
// SET statement, pgx as a session setting.
func TestURLParameterAllowList(t *testing.T) {
	ok := []string{
		"postgres://u:p@h/db?sslmode=require&connect_timeout=5&application_name=x&sslrootcert=/a/b.pem",
		"postgres://u@h/db?password=p&target_session_attrs=read-write",
		"mysql://u:p@h/db?tls=skip-verify&timeout=5s&readTimeout=1m&charset=utf8mb4&collation=utf8mb4_bin",
		"mysql://u@h/db?password=p",
	}
	for _, raw := range ok {
		if _, err := target.ParseURL(raw); err != nil {
			t.Errorf("ParseURL(%q): %v", raw, err)
		}
	}
	bad := map[string]string{
		"mysql://u:p@h/db?autocommit=(select+1)":                  "autocommit",
		"mysql://u:p@h/db?sql_mode=ANSI":                          "sql_mode",
		"mysql://u@h/db?password=PASSWORD('New')&x=1":             "x",
		"mysql://u:p@h/db?charset=utf8%3BDROP":                    "charset",
		"mysql://u:p@h/db?timeout=soon":                           "timeout",
		"mysql://u:p@h/db?multiStatements=true":                   "multiStatements",
		"postgres://u:p@h/db?options=-c%20fsync%3Doff":            "options",
		"postgres://u:p@h/db?sslmode=sometimes":                   "sslmode",
		"postgres://u:p@h/db?search_path=x":                       "search_path",
		"postgres://u:p@h/db?connect_timeout=5&connect_timeout=6": "connect_timeout",
		"sqlite://x.db?_pragma=foreign_keys(0)":                   "_pragma",
		"mysql://u:Old@h/db?password=New":                         "password",
	}
	for raw, name := range bad {
		_, err := target.ParseURL(raw)
		var ue *target.URLError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), name) {
			t.Errorf("ParseURL(%q) = %v; want a usage error naming %q", raw, err, name)
		}
	}
}

func TestURLPassword(t *testing.T) {
	for raw, want := range map[string]string{
		"postgres://u:a%40b@h/db":      "a@b",
		"postgres://u@h/db?password=q": "q",
		"mysql://u@h/db":               "",
	} {
		u, err := target.ParseURL(raw)
		if err != nil || u.Password != want {
			t.Errorf("ParseURL(%q).Password = %q, %v; want %q", raw, u.Password, err, want)
		}
		if strings.Contains(u.String(), "a@b") || (want != "" && strings.Contains(u.String(), "="+want)) {
			t.Errorf("URL.String() %q shows the password", u.String())
		}
	}
}

// docs/cli.md lists every URL parameter each database accepts.
func TestURLParametersDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, s := range target.Registered() {
		for _, p := range s.Params {
			if !strings.Contains(doc, "`"+p.Name+"`") {
				t.Errorf("docs/cli.md does not list the %s URL parameter %s", s.Names[0], p.Name)
			}
		}
	}
}

// ${VAR} in a URL is percent-encoded for where it lands: the userinfo, a parameter's value; it is
// left as it is elsewhere.
func TestExpandURL(t *testing.T) {
	env := map[string]string{"PW": "a/b#c?d%e f@g:h&i=j+k\"'", "USER": "u@x", "HOST": "127.0.0.1:5432", "DB": "tpcc", "MODE": "require"}
	cli := target.Env{Lookup: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	for raw, want := range map[string]string{
		"postgres://bench:${PW}@${HOST}/${DB}":                     "postgres://bench:a%2Fb%23c%3Fd%25e%20f%40g%3Ah&i=j+k%22%27@127.0.0.1:5432/tpcc",
		"mysql://${USER}:${PW}@h/db":                               "mysql://u%40x:a%2Fb%23c%3Fd%25e%20f%40g%3Ah&i=j+k%22%27@h/db",
		"mysql://${USER}@h/db?tls=false":                           "mysql://u%40x@h/db?tls=false",
		"postgres://u@h/${DB}":                                     "postgres://u@h/tpcc",
		"sqlite://${DB}.db":                                        "sqlite://tpcc.db",
		"postgres://u@h/db?password=${PW}":                         "postgres://u@h/db?password=a%2Fb%23c%3Fd%25e+f%40g%3Ah%26i%3Dj%2Bk%22%27",
		"postgres://u@h/db?sslmode=${MODE}&application_name=${DB}": "postgres://u@h/db?sslmode=require&application_name=tpcc",
		"postgres://u@h/db?sslpassword=${PW}#${MODE}":              "postgres://u@h/db?sslpassword=a%2Fb%23c%3Fd%25e+f%40g%3Ah%26i%3Dj%2Bk%22%27#require",
	} {
		got, err := cli.ExpandURL(raw)
		if err != nil || got != want {
			t.Errorf("ExpandURL(%q) = %q, %v; want %q", raw, got, err, want)
		}
		if strings.Contains(raw, "#") {
			continue
		}
		if u, err := target.ParseURL(got); err != nil || strings.Contains(raw, "${PW}") && u.Password != env["PW"] {
			t.Errorf("%q does not parse back to the password: %v", got, err)
		}
	}
	_, err := cli.ExpandURL("postgres://u:${NOSUCH}@h/db")
	var ue *target.URLError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "${NOSUCH} is not set") {
		t.Errorf("an unset variable: %v", err)
	}
}
