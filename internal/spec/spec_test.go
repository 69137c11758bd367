package spec_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/spec"
	"github.com/cairn-bench/cairn/internal/target"
	_ "github.com/cairn-bench/cairn/internal/target/all"
	"github.com/cairn-bench/cairn/internal/workload"
	_ "github.com/cairn-bench/cairn/internal/workload/all"
)

// docs/spec.schema.json is the schema the code makes; CAIRN_UPDATE_SCHEMA=1 writes it anew.
func TestSchemaIsCurrent(t *testing.T) {
	want := spec.Schema()
	const path = "../../docs/spec.schema.json"
	if os.Getenv("CAIRN_UPDATE_SCHEMA") != "" {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("docs/spec.schema.json is not the schema the code makes: run CAIRN_UPDATE_SCHEMA=1 go test ./internal/spec")
	}
}

// A spec written out reads back to the same spec, for every workload, run and profile.
func TestRoundTrip(t *testing.T) {
	for _, w := range workload.All() {
		for _, profile := range []bool{false, true} {
			if profile && !w.Info().Profile {
				continue
			}
			s, err := spec.New(w.Info().Name, profile)
			if err != nil {
				t.Fatal(err)
			}
			s.DB = "sqlite://x.db"
			s.Seed = 1<<62 + 7 // beyond a float64's exact integers
			s.AskPrepare()
			if err := s.Check(); err != nil { // as every front end does before writing or running a spec
				t.Fatal(err)
			}
			b := s.YAML()
			back, err := spec.Read(b)
			if err != nil {
				t.Fatalf("%s: %v\n%s", w.Info().Name, err, b)
			}
			if !bytes.Equal(back.YAML(), b) {
				t.Errorf("%s: read back differs:\n%s\nwas\n%s", w.Info().Name, back.YAML(), b)
			}
		}
	}
}

// Bad specs: one error naming the key and what is accepted.
func TestBadSpecs(t *testing.T) {
	os.Unsetenv("CAIRN_NO_SUCH_VAR")
	for text, want := range map[string]string{
		"workload: tpcc\nnosuch: 1\n":                                  "nosuch: unknown key (accepted: workload, db",
		"workload: tpcc\nvu: many\n":                                   `vu: "many" is not a whole number`,
		"workload: tpcc\nduration: soon\n":                             "duration: not a duration",
		"workload: tpcc\nduration: -5s\n":                              "duration: must not be negative",
		"workload: nosuch\n":                                           `workload: unknown workload "nosuch" (use fanout, oltp, tpcb, tpcc, tpch)`,
		"db: sqlite://x.db\n":                                          "workload: missing",
		"workload: tpcc\noptions: {mode: fast}\n":                      "options.mode: use procs or sql (given fast)",
		"workload: tpcc\noptions: {nosuch: 1}\n":                       "options.nosuch: unknown option (accepted: all-warehouses, keying-thinking, mode)",
		"workload: tpcc\noptions: 3\n":                                 "options: must be a mapping",
		"workload: tpcc\nrampup: [1, 2]\n":                             "rampup: must be a single value",
		"workload: tpch\nvu: 4\n":                                      "vu: tpch does not use it",
		"workload: tpcc\nvu: 4\nrepeat: 2\n":                           "repeat: only a profile",
		"workload: tpcc\nprepare: {warehouses: 0}\n":                   "prepare.warehouses: need at least 1",
		"workload: tpcc\nrate: 10\noptions: {keying-thinking: true}\n": "exclude each other",
		"workload: oltp\noptions: {workload: read-mostly}\n":           "unknown; use one of point-select",
		"- 1\n- 2\n":                     "must be a mapping",
		"workload: tpcc\nvu: 4\nvu: 5\n": "vu",
		"{workload: tpcc, vu: }":         "vu: has no value",
	} {
		_, err := spec.Read([]byte(text))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error with %q", text, err, want)
		}
	}
	// A db naming a variable that is not set is kept as written (--set db= may replace it), and
	// refused by name when it is opened.
	s, err := spec.Read([]byte("workload: tpcc\ndb: postgres://u:${CAIRN_NO_SUCH_VAR}@h/d\n"))
	if err != nil || s.DB != "postgres://u:${CAIRN_NO_SUCH_VAR}@h/d" {
		t.Fatalf("db with an unset variable: %v, %q", err, s.DB)
	}
	if _, err := target.ParseSet(s.DB); err == nil || !strings.Contains(err.Error(), "${CAIRN_NO_SUCH_VAR} is not set") {
		t.Errorf("opening it: %v", err)
	}
}

// ${VAR} reads the environment, in the URL as in any value.
func TestVariables(t *testing.T) {
	t.Setenv("CAIRN_TEST_PW", "s3cret")
	t.Setenv("CAIRN_TEST_VUS", "3")
	s, err := spec.Read([]byte("workload: tpcc\ndb: postgres://u:${CAIRN_TEST_PW}@h/d\nvu: ${CAIRN_TEST_VUS}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.DB != "postgres://u:s3cret@h/d" || s.VU[0] != 3 {
		t.Errorf("db %q vu %v", s.DB, s.VU)
	}
	if strings.Contains(string(s.YAML()), "s3cret") {
		t.Error("the written spec holds the password")
	}
	for _, v := range s.Config() {
		if strings.Contains(toString(v), "s3cret") {
			t.Error("the stored config holds the password")
		}
	}
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// A spec's secrets print back as the references they were given as, each its own, so that the
// spec printed runs the same; a secret written literally (a --db flag's) becomes a reference of
// its own kind, numbered when a shard set's members hold different ones.
func TestSecretsWrittenBack(t *testing.T) {
	t.Setenv("PG_LOGIN_PW", "login-s3cret")
	t.Setenv("PG_KEY_PW", "key-s3cret")
	db := "postgres://u:${PG_LOGIN_PW}@h/d?sslmode=require&sslpassword=${PG_KEY_PW}"
	s, err := spec.Read([]byte("workload: tpcc\ndb: " + db + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	b := s.YAML()
	if !strings.Contains(string(b), "db: "+db+"\n") || strings.Contains(string(b), "s3cret") {
		t.Errorf("written:\n%s", b)
	}
	back, err := spec.Read(b)
	if err != nil || back.DB != s.DB || !strings.Contains(s.DB, "login-s3cret") || !strings.Contains(s.DB, "key-s3cret") {
		t.Errorf("read back: %v, %q, was %q", err, back.DB, s.DB)
	}
	if v := s.SecretVars(); strings.Join(v, " ") != "PG_KEY_PW PG_LOGIN_PW" {
		t.Errorf("secret variables %v", v)
	}
	for given, want := range map[string]string{
		"postgres://u:lit1@h/d?sslpassword=lit2":                      "postgres://u:${CAIRN_PASSWORD}@h/d?sslpassword=${CAIRN_SSLPASSWORD}",
		"postgres://u@h/d?password=lit1&sslpassword=lit1":             "postgres://u@h/d?password=${CAIRN_PASSWORD}&sslpassword=${CAIRN_SSLPASSWORD}",
		"mysql://u:lit1@h1/x mysql://u:lit2@h2/x mysql://u:lit1@h3/x": "[mysql://u:${CAIRN_PASSWORD}@h1/x mysql://u:${CAIRN_PASSWORD_2}@h2/x mysql://u:${CAIRN_PASSWORD}@h3/x]",
		"mysql://u:${CAIRN_PASSWORD}@h1/x mysql://u:lit1@h2/x":        "[mysql://u:${CAIRN_PASSWORD}@h1/x mysql://u:${CAIRN_PASSWORD_2}@h2/x]",
		"mysql://u:${A}@h1/x mysql://u:${B}@h2/x":                     "[mysql://u:${A}@h1/x mysql://u:${B}@h2/x]",
	} {
		s, err := spec.New("oltp", false)
		if err != nil {
			t.Fatal(err)
		}
		s.DB = given // as a --db flag gives it
		var got any
		if err := s.Node().Content[3].Decode(&got); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != want || strings.Contains(string(s.YAML()), "lit") {
			t.Errorf("--db %s is written %v, want %s", given, got, want)
		}
	}
}

// A reader that expands only secrets (cairn serve's) refuses a ${VAR} in every other field,
// naming it, and reads an allowed one in the password.
func TestServeEnvFields(t *testing.T) {
	t.Setenv("CAIRN_PASSWORD", "s3cret#%@/")
	env := target.ServeEnv([]string{"CAIRN_PASSWORD"})
	s, err := spec.ReadEnv([]byte("workload: tpcc\ndb: postgres://u:${CAIRN_PASSWORD}@h/d\nvu: [1, 2]\n"), env)
	if err != nil {
		t.Fatal(err)
	}
	if u, err := target.ParseURL(s.DB); err != nil || u.Password != "s3cret#%@/" {
		t.Errorf("the password: %v", err)
	}
	s.AskPrepare()
	text := string(s.YAML())
	n := 0
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok || v == "" || strings.HasPrefix(strings.TrimSpace(k), "db") {
			continue
		}
		key := strings.TrimSpace(k)
		if strings.HasPrefix(line, "  ") {
			// options: and prepare: are the only mappings; which one is above this line
			i := strings.Index(text, line)
			if strings.LastIndex(text[:i], "\nprepare:") > strings.LastIndex(text[:i], "\noptions:") {
				key = "prepare." + key
			} else {
				key = "options." + key
			}
		}
		bad := strings.Replace(text, line, k+": ${CAIRN_PASSWORD}", 1)
		_, err := spec.ReadEnv([]byte(bad), env)
		var se *spec.Error
		if !errors.As(err, &se) || se.Key != key || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: ${CAIRN_PASSWORD}: %v", key, err)
		}
		n++
	}
	if n < 20 {
		t.Errorf("only %d fields tried:\n%s", n, text)
	}
}
