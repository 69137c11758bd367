package spec_test

import (
	"bytes"
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
