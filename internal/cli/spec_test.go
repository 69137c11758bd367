package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/target"
	"github.com/cairn-bench/cairn/internal/testutil"
)

var storedID = regexp.MustCompile(`stored as (?:result|profile) (\d+) in`)

// TestSpecReplaysTheCommand is the run spec's promise on every workload and database: the spec a
// command prints with --print-spec runs, through 'cairn run --spec', the run the command runs,
// and both store the same config. --set changes one field; 'results show ID --spec' gives back a
// spec that runs again to the same config; no password is written anywhere on the way.
func TestSpecReplaysTheCommand(t *testing.T) {
	common := []string{"--rampup", "0s", "--duration", "1s", "--seed", "7", "--no-store"}
	// The targets are independent servers and files, so they run side by side (CI's time) when one
	// CAIRN_PASSWORD serves them all: t.Setenv cannot be called in a parallel test.
	passwords := testutil.Passwords()
	parallel := len(passwords) <= 1
	if len(passwords) == 1 {
		t.Setenv("CAIRN_PASSWORD", passwords[0])
	}
	for _, tg := range testutil.Targets() {
		t.Run(tg.Name, func(t *testing.T) {
			if parallel {
				t.Parallel()
			}
			url := tg.URL(t)
			u, err := target.ParseURL(url)
			if err != nil {
				t.Fatal(err)
			}
			if u.Password != "" && !parallel {
				t.Setenv("CAIRN_PASSWORD", u.Password)
			}
			dir := t.TempDir()
			for _, c := range []struct {
				workload string
				args     []string
			}{
				{"tpcc", append([]string{"run", "--prepare", "-w", "1", "--vu", "2"}, common...)},
				{"tpcb", append([]string{"run", "--prepare", "-c", "2"}, common...)},
				{"fanout", append([]string{"run", "--prepare", "--rows", "400", "--parallelism", "2"}, common...)},
				{"oltp", append([]string{"run", "--prepare", "--tables", "2", "--table-size", "500", "--workload", "point-select"}, common...)},
				{"oltp", append([]string{"profile", "--prepare", "--tables", "2", "--table-size", "500", "--vu", "1,2", "--pause", "0s"}, common...)},
				{"tpch", []string{"run", "--prepare", "--sf", "0.01", "--power", "--seed", "7", "--no-store"}},
			} {
				name := c.workload + " " + c.args[0]
				cairn(t, c.workload, "cleanup", "--db", url)
				t.Cleanup(func() { cairn(t, c.workload, "cleanup", "--db", url) })
				args := append([]string{c.workload}, c.args...)
				args = append(args, "--db", url)

				code, yaml, stderr := cairn(t, append(args, "--print-spec")...)
				if code != 0 {
					t.Fatalf("%s --print-spec: exit %d %s", name, code, stderr)
				}
				if u.Password != "" && strings.Contains(yaml, u.Password+"@") {
					t.Fatalf("%s --print-spec wrote the password:\n%s", name, yaml)
				}
				specFile := filepath.Join(dir, c.workload+c.args[0]+".yaml")
				if err := os.WriteFile(specFile, []byte(yaml), 0o644); err != nil {
					t.Fatal(err)
				}

				direct := filepath.Join(dir, "direct.json")
				if code, out, stderr := cairn(t, append(args, "--json", direct)...); code != 0 {
					t.Fatalf("%s: exit %d\n%s\n%s", name, code, out, stderr)
				}
				replay := filepath.Join(dir, "replay.json")
				if code, out, stderr := cairn(t, "run", "--spec", specFile, "--json", replay); code != 0 {
					t.Fatalf("%s from its spec: exit %d\n%s\n%s", name, code, out, stderr)
				}
				a, b := field(t, readDoc(t, direct), "config"), field(t, readDoc(t, replay), "config")
				if !reflect.DeepEqual(a, b) {
					t.Errorf("%s: config of the command and of its spec differ:\n%v\n%v", name, a, b)
				}
				if db := field(t, readDoc(t, replay), "config.db").(string); u.Password != "" && !strings.Contains(db, "${CAIRN_PASSWORD}") {
					t.Errorf("%s: stored db %q", name, db)
				}
				if c.workload == "tpcc" {
					specChanges(t, specFile, dir)
				}
				cairn(t, c.workload, "cleanup", "--db", url) // TPC-H's tables have TPC-C's names
			}
		})
	}
}

// specChanges runs a tpcc spec with --set changes, stores it, and runs the spec the store gives
// back.
func specChanges(t *testing.T, specFile, dir string) {
	t.Helper()
	out1 := filepath.Join(dir, "set.json")
	code, out, stderr := cairn(t, "run", "--spec", specFile, "--set", "vu=3", "--set", "options.mode=sql", "--set", "no-such=1")
	if code != ExitUsage || !strings.Contains(stderr, "no-such") {
		t.Errorf("--set of an unknown key: exit %d %q", code, stderr)
	}
	code, out, stderr = cairn(t, "run", "--spec", specFile, "--set", "vu=3", "--set", "options.mode=sql", "--json", out1)
	if code != 0 {
		t.Fatalf("run --spec --set: exit %d\n%s\n%s", code, out, stderr)
	}
	d := readDoc(t, out1)
	if vu, mode := field(t, d, "config.vu"), field(t, d, "config.options.mode"); vu != 3.0 || mode != "sql" || d["mode"] != "sql" {
		t.Errorf("after --set vu=3 options.mode=sql: config vu %v mode %v, ran %v", vu, mode, d["mode"])
	}
	m := storedID.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no stored id in:\n%s", out)
	}
	code, shown, stderr := cairn(t, "results", "show", m[1], "--spec")
	if code != 0 || !strings.Contains(shown, "workload: tpcc") {
		t.Fatalf("results show %s --spec: exit %d %s\n%s", m[1], code, stderr, shown)
	}
	again := filepath.Join(dir, "again.yaml")
	if err := os.WriteFile(again, []byte(shown), 0o644); err != nil {
		t.Fatal(err)
	}
	out2 := filepath.Join(dir, "again.json")
	if code, out, stderr := cairn(t, "run", "--spec", again, "--json", out2, "--no-store"); code != 0 {
		t.Fatalf("run of the stored spec: exit %d\n%s\n%s", code, out, stderr)
	}
	if a, b := field(t, d, "config"), field(t, readDoc(t, out2), "config"); !reflect.DeepEqual(a, b) {
		t.Errorf("the stored spec ran with another config:\n%v\n%v", a, b)
	}
}

// A bad spec is one line naming the key and what it accepts, and exit 2, before anything runs.
func TestBadSpecs(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("CAIRN_TEST_UNSET_VAR", "")
	os.Unsetenv("CAIRN_TEST_UNSET_VAR")
	for _, c := range []struct{ text, want string }{
		{"workload: tpcc\nvux: 2\n", "vux: unknown key (accepted: workload, db, vu,"},
		{"workload: tpcc\nvu: [1, x]\n", "vu:"},
		{"workload: tpcc\nvu: two\n", "vu: \"two\" is not a whole number"},
		{"workload: tpcc\nduration: 10q\n", "duration: not a duration"},
		{"workload: tpcc\nrampup: -1s\n", "rampup: must not be negative"},
		{"workload: tpcc\nduration: 99999999999\n", "duration: too large: the longest duration is 2562047h47m16s"},
		{"workload: tpcc\noptions:\n  mode: fast\n", "options.mode: use procs or sql (given fast)"},
		{"workload: tpcc\noptions:\n  warehouses: 2\n", "options.warehouses"},
		{"workload: tpcc\noptions: 3\n", "options: must be a mapping"},
		{"workload: nosuch\n", `workload: unknown workload "nosuch" (use fanout, oltp, tpcb, tpcc, tpch)`},
		{"vu: 2\n", "workload: missing"},
		{"workload: tpcc\ndb: postgres://u:${CAIRN_TEST_UNSET_VAR}@h/db\n", "db: ${CAIRN_TEST_UNSET_VAR} is not set in the environment"},
		{"workload: tpch\nvu: 2\n", "vu: tpch does not use it"},
		{"workload: tpcc\nvu: 2\nrepeat: 3\n", "repeat: only a profile (vu: a list) has it"},
		{"workload: tpcc\nvu: [2, 2]\n", "vu: 2 appears twice"},
		{"workload: tpcc\nworkload: tpcc\n", "given twice"},
		{"{\"workload\": \"tpcc\", \"vu\": \"4\"", "not YAML or JSON"},
		{"workload: tpcc\ndb: nosuch://x\n", "unknown scheme"},
		{"workload: tpcc\nvu: 2\n---\nworkload: oltp\n", "spec: holds more than one YAML document (another begins at line 3)"},
	} {
		f := filepath.Join(dir, "bad.yaml")
		if err := os.WriteFile(f, []byte(c.text), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, stderr := cairn(t, "run", "--spec", f)
		if code != ExitUsage || !strings.Contains(stderr, c.want) || out != "" {
			t.Errorf("%q: exit %d, stderr %q, want %q", c.text, code, stderr, c.want)
		}
		oneCleanLine(t, stderr)
	}
	code, _, stderr := cairn(t, "run", "--spec", filepath.Join(dir, "none.yaml"))
	if code != ExitUsage || !strings.Contains(stderr, "none.yaml") {
		t.Errorf("missing spec file: exit %d %q", code, stderr)
	}
	code, _, stderr = cairn(t, "run")
	if code != ExitUsage || !strings.Contains(stderr, "--spec") {
		t.Errorf("run without --spec: exit %d %q", code, stderr)
	}
}

// A spec shared by the parts of a run names its part-run; each process gives its part with
// --part I/N or --set part=I/N. The changes apply before the spec is checked as a whole, so the
// shared file (a part-run without a part, alone refused) runs as a part; a bad part is refused in
// one line, and so is the shared file without any part.
func TestSpecPartFromTheCommandLine(t *testing.T) {
	f := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(f, []byte("workload: tpcc\nvu: 3\npart-run: nightly\nstart-at: \"@4102444800\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--part", "2/3"}, {"--set", "part=2/3"}} {
		code, out, stderr := cairn(t, append([]string{"run", "--spec", f, "--print-spec"}, args...)...)
		if code != 0 || !strings.Contains(out, "\npart: 2/3\n") || !strings.Contains(out, "\npart-run: nightly\n") {
			t.Errorf("%v: exit %d, stderr %q, spec:\n%s", args, code, stderr, out)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "only a part of a run (--part I/N)"},
		{[]string{"--part", "4/3"}, "--part 4/3: give I/N with 1 <= I <= N"},
		{[]string{"--set", "part=0/3"}, "part 0/3: give I/N with 1 <= I <= N"},
	} {
		code, out, stderr := cairn(t, append([]string{"run", "--spec", f, "--print-spec"}, c.args...)...)
		if code != ExitUsage || out != "" || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
		oneCleanLine(t, stderr)
	}
}
