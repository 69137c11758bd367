package target_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
)

// cairn serve's reading of a URL: an allowed variable where a password goes, percent-encoded for
// where it lands; a reference anywhere else, a variable not allowed, and a password written
// literally are refused, and no refusal shows a value.
func TestServeEnvURL(t *testing.T) {
	vars := map[string]string{"ALLOWED": `ZQX#WVU%zz Y@TSR/?:"'&=`, "OTHER": "0THERVALUE"}
	env := target.ServeEnv([]string{"ALLOWED", "UNSET"})
	env.Lookup = func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
	for _, raw := range []string{
		"postgres://u:${ALLOWED}@h/db",
		"postgres://u@h/db?password=${ALLOWED}&sslmode=disable",
		"postgres://u:${ALLOWED}@h/db?sslpassword=${ALLOWED}&sslmode=require",
	} {
		got, err := env.ExpandURL(raw)
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		u, err := target.ParseURL(got)
		if err != nil || u.Password != vars["ALLOWED"] || strings.Contains(raw, "sslpassword") && u.Params["sslpassword"] != vars["ALLOWED"] {
			t.Errorf("%s does not parse back to the password: %v", raw, err)
		}
	}
	for raw, want := range map[string]string{
		"${ALLOWED}://u@h/db":                                          "scheme",
		"postgres://${ALLOWED}@h/db":                                   "user name",
		"postgres://u@${ALLOWED}/db":                                   "host",
		"postgres://u@h:${ALLOWED}/db":                                 "host",
		"postgres://u@h/${ALLOWED}":                                    "database",
		"postgres://u@h/db?${ALLOWED}=1":                               "parameter names",
		"postgres://u@h/db?sslmode=${ALLOWED}":                         "sslmode=",
		"postgres://u@h/db#${ALLOWED}":                                 "fragment",
		"postgres://u:${OTHER}@h/db":                                   "${OTHER} is not a variable cairn serve may read",
		"postgres://u@h/db?password=${OTHER}":                          "${OTHER} is not a variable",
		"postgres://u:${UNSET}@h/db":                                   "${UNSET} is not set in cairn serve's environment",
		"postgres://u@h/db?sslpassword=Lit3ral":                        "sslpassword= value is written in the URL",
		"postgres://u:${ALLOWED}@h/db?password=Lit3":                   "password= value is written in the URL",
		"postgres://u:Lit3ral@h/db":                                    "password is written in the URL",
		"postgres://u:x${ALLOWED}@h/db":                                "password is written in the URL",
		"postgres://u:${ALLOWED}@h:5432/db?application_name=a@Lit3ral": "last '@'",
		"mysql://u:${ALLOWED}@h1/a mysql://u:Lit3ral@h2/b":             "password is written",
	} {
		_, err := env.ExpandURL(raw)
		var ue *target.URLError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a URL error with %q", raw, err, want)
			continue
		}
		for _, v := range []string{"ZQX", "WVU", "TSR", "0THER", "Lit3"} {
			if strings.Contains(err.Error(), v) {
				t.Errorf("%s: the error shows %s: %v", raw, v, err)
			}
		}
	}
	// Outside a URL, nothing.
	if _, err := env.Expand("${ALLOWED}"); err == nil {
		t.Error("a reference outside db is expanded")
	}
	if v, err := target.UserEnv.Expand("x"); err != nil || v != "x" {
		t.Errorf("a value without a reference: %q %v", v, err)
	}
}

// A password in ?password= or ?sslpassword=, written in the URL, is never shown, whatever it holds:
// # (which would end the URL), % (a bad escape), @, & …; a '#' is refused before anything parses
// the URL.
func TestQueryPasswordNeverShown(t *testing.T) {
	for _, raw := range []string{
		"postgres://u@127.0.0.1/db?password=ZQX#WVUtail",
		"postgres://u@127.0.0.1/db?sslmode=disable&password=ZQX#WVU",
		"postgres://u@127.0.0.1/db?password=ZQX%zzWVU",
		"postgres://u@127.0.0.1/db?sslpassword=ZQX%WVU&password=x%",
		"postgres://u@127.0.0.1/db?password=ZQX;WVU",
		"postgres://u:ZQX#WVU@127.0.0.1/db",
		"mysql://u@127.0.0.1/db?password=ZQX%zzWVU",
		"mysql://u@127.0.0.1/db?password=ZQX#WVU",
	} {
		_, err := target.ParseURL(raw)
		if err == nil {
			t.Errorf("%s: accepted", raw)
			continue
		}
		for _, v := range []string{"ZQX", "WVU", "%zz", "%WV", "tail"} {
			if strings.Contains(err.Error(), v) {
				t.Errorf("%s: the error shows %s: %v", raw, v, err)
			}
		}
	}
	for raw, want := range map[string]string{
		"postgres://u@h/db?password=ZQX#WVUtail&sslmode=disable": "postgres://u@h/db?password=xxxxx&sslmode=disable",
		"postgres://u@h/db?sslpassword=a%40b%23c#d":              "postgres://u@h/db?sslpassword=xxxxx",
	} {
		if got := target.Redact(raw); got != want {
			t.Errorf("Redact(%q) = %q, want %q", raw, got, want)
		}
	}
}
