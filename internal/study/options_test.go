package study

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
)

// A list under prepare or options is a factor: the schema's vary slowest, every order prepares
// each schema as few times as it allows, and each case's spec carries its level.
func TestSchemaFactor(t *testing.T) {
	st := read(t, `name: x
workload: tpcc
db: sqlite:///tmp/x.db
prepare: {warehouses: 2, partition: [true, false]}
vu: [1, 2]
repeat: 3
seed: 9
settings: {cache_size: [100, 200]}
`)
	if len(st.Options) != 1 || st.Options[0].Name != "prepare.partition" || !st.Options[0].Schema {
		t.Fatalf("factors %+v", st.Options)
	}
	var labels []string
	for _, c := range st.Cases() {
		labels = append(labels, c.Label())
	}
	want := "prepare.partition=true, cache_size=100|prepare.partition=true, cache_size=200|prepare.partition=false, cache_size=100|prepare.partition=false, cache_size=200"
	if got := strings.Join(labels, "|"); got != want {
		t.Errorf("cases:\n%s\nwant\n%s", got, want)
	}
	schemas := func() string {
		var out []string
		for i, s := range st.Steps() {
			if i == 0 || s.Case.Schema != st.Steps()[i-1].Case.Schema {
				out = append(out, strings.TrimPrefix(s.Case.Schema, "prepare.partition="))
			}
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		order, schemas string
		prepares       int
	}{{"sequential", "true false", 2}, {"interleaved", "true false true false", 4}, {"random", "", 2}} {
		st.Order = c.order
		got := schemas()
		if c.schemas != "" && got != c.schemas || st.Prepares() != c.prepares || len(st.Steps()) != 24 {
			t.Errorf("%s: schemas in turn %q, %d prepares, %d steps; want %q, %d, 24", c.order, got, st.Prepares(), len(st.Steps()), c.schemas, c.prepares)
		}
	}
	// Interleaved: every case and VU count once per round, the schemas' order reversed every
	// other round.
	st.Order = "interleaved"
	var round []string
	for _, s := range st.Steps()[:16] {
		round = append(round, fmt.Sprintf("%d/%d/%d", s.Case.Index, s.VU, s.Repeat))
	}
	if got := strings.Join(round, " "); got != "0/1/0 0/2/0 1/1/0 1/2/0 2/1/0 2/2/0 3/1/0 3/2/0 2/1/1 2/2/1 3/1/1 3/2/1 0/1/1 0/2/1 1/1/1 1/2/1" {
		t.Errorf("interleaved: %s", got)
	}
	// Random: reproducible with the seed, each schema's steps together, shuffled within.
	st.Order = "random"
	order := func() string {
		var out []string
		for _, s := range st.Steps() {
			out = append(out, fmt.Sprintf("%d/%d/%d", s.Case.Index, s.VU, s.Repeat))
		}
		return strings.Join(out, " ")
	}
	if a, b := order(), order(); a != b {
		t.Errorf("random is not reproducible: %s / %s", a, b)
	}
	st.DrawSeed()
	for _, c := range st.Cases() {
		s, err := st.CaseSpec(c)
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("Partition:%s", c.Options[0].Value)
		if p := fmt.Sprintf("%+v", s.Prepare.Options); !strings.Contains(p, want) || !strings.Contains(p, "Warehouses:2") || !strings.Contains(p, "Seed:9") {
			t.Errorf("case %s prepares %s", c.Label(), p)
		}
	}
	if fmt.Sprintf("%+v", st.Spec.Prepare.Options) == "" || st.Config()["prepare"].(map[string]any)["partition"] == nil {
		t.Errorf("config %v", st.Config()["prepare"])
	}
	if got := fmt.Sprintf("%#v", st.Config()["prepare"].(map[string]any)["partition"]); got != `[]interface {}{true, false}` {
		t.Errorf("the stored config's prepare.partition is %s, want the factor's levels", got)
	}
	// --set of the factor's path gives it one value: no factor left.
	if err := st.Set("prepare.partition", "false"); err != nil || len(st.Options) != 0 || len(st.Cases()) != 2 {
		t.Errorf("--set prepare.partition=false: %v, factors %+v, %d cases", err, st.Options, len(st.Cases()))
	}
}

// options.tables is oltp's run option and its prepare's: a factor of the schema, set in both.
func TestSharedOptionFactor(t *testing.T) {
	st := read(t, `name: x
workload: oltp
db: sqlite:///tmp/x.db
options: {workload: point-select, tables: [1, 8], table-size: 1000}
prepare: true
vu: [1]
order: interleaved
repeat: 3
client_cpus: ["0"]
server_cpus: ["0", "0-1"]
`)
	if len(st.Options) != 1 || !st.Options[0].Schema || len(st.Cases()) != 4 || st.Prepares() != 4 {
		t.Fatalf("factors %+v, %d cases, %d prepares", st.Options, len(st.Cases()), st.Prepares())
	}
	for _, c := range st.Cases() {
		s, err := st.CaseSpec(c)
		if err != nil {
			t.Fatal(err)
		}
		n := c.Options[0].Value
		if r, p := fmt.Sprintf("%+v", s.Options), fmt.Sprintf("%+v", s.Prepare.Options); !strings.Contains(r, "Tables:"+n+" ") || !strings.Contains(p, "Tables:"+n+" ") {
			t.Errorf("case %s: run options %s, prepare %s", c.Label(), r, p)
		}
	}
	if rows := st.PrepareRows(); fmt.Sprint(rows) != "[1000 8000]" {
		t.Errorf("rows per schema %v", rows)
	}
	// A run option the prepare does not share is a factor too, of the run alone.
	st = read(t, "name: x\nworkload: tpcc\ndb: sqlite:///tmp/x.db\noptions: {mode: [procs, sql]}\nvu: [1]\n")
	if len(st.Options) != 1 || st.Options[0].Schema || st.Prepares() != 0 || len(st.Cases()) != 2 {
		t.Errorf("options.mode: %+v, %d prepares", st.Options, st.Prepares())
	}
}

// Bad input is refused when the file is read, before anything runs, one line naming the key.
func TestOptionFactorRefusals(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"prepare: {partition: [true, maybe]}", "prepare.partition"},
		{"prepare: {warehouses: [1, 0]}", "prepare.warehouses"},
		{"prepare: {nosuch: [1, 2]}", "nosuch"},
		{"options: {nosuch: [1, 2]}", "nosuch"},
		{"options: {mode: [procs, fast]}", "options.mode"},
		{"prepare: {partition: [true, true]}", "true appears twice"},
		{"prepare: {partition: [true, [false]]}", "list of values"},
	} {
		_, err := Read([]byte("name: x\nworkload: tpcc\ndb: sqlite:///tmp/x.db\nvu: [1]\n" + c.text + "\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line naming %q", c.text, err, c.want)
		}
	}
	// A schema factor needs the study to prepare its schemas.
	_, err := Read([]byte("name: x\nworkload: oltp\ndb: sqlite:///tmp/x.db\nvu: [1]\noptions: {tables: [1, 8]}\n"))
	if err == nil || !strings.Contains(err.Error(), "options.tables") || !strings.Contains(err.Error(), "prepare: true") {
		t.Errorf("options.tables without prepare: %v", err)
	}
	_, err = Read([]byte("name: x\nworkload: oltp\ndb: sqlite:///tmp/x.db\nvu: [1]\noptions: {tables: [1, 8]}\nprepare: {tables: [2, 4]}\n"))
	if err == nil || !strings.Contains(err.Error(), "same option") {
		t.Errorf("options.tables and prepare.tables: %v", err)
	}
	st := read(t, "name: x\nworkload: tpcc\ndb: sqlite:///tmp/x.db\nvu: [1]\nprepare: {partition: [true, false]}\n")
	if err := st.Set("prepare", "false"); err == nil {
		t.Error("--set prepare=false with a schema factor is accepted")
	}
}

// The plan names the factor and the prepares, and marks the steps that come after one.
func TestPlanPrintsSchemaFactor(t *testing.T) {
	st := read(t, `name: x
workload: tpcc
db: sqlite:///tmp/x.db
prepare: {warehouses: 4, partition: [true, false]}
vu: [1, 2]
`)
	var b bytes.Buffer
	(&Plan{Study: st, Target: "SQLite"}).Print(&b)
	out := b.String()
	for _, want := range []string{"prepare.partition  → true, false (the schema: each level prepared)",
		"2 prepares (once per schema), each about 2.1M rows", "prepare.partition=true", "1 VU, run 1, after a prepare",
		"plus 2 prepares, each about 2.1M rows"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "after a prepare"); n != 2 {
		t.Errorf("%d steps after a prepare, want 2:\n%s", n, out)
	}
}

// A stored study whose schema is a factor is written back (results show --spec) as a file that
// reads to the same factors, the levels typed as the file typed them.
func TestOptionFactorPrintback(t *testing.T) {
	st := read(t, `name: x
workload: tpcc
db: sqlite:///tmp/x.db
prepare: {warehouses: 2, partition: [true, false]}
vu: [1]
settings: {cache_size: [100, 200]}
`)
	doc := &results.Study{Config: st.Config()}
	for _, f := range append(append([]Factor(nil), st.Options...), st.Settings...) {
		doc.Factors = append(doc.Factors, results.Factor{Name: f.Name, Levels: f.Values})
	}
	b, err := FileText(doc)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Read(b)
	if err != nil {
		t.Fatalf("the study written back does not read: %v\n%s", err, b)
	}
	if fmt.Sprint(back.Options) != fmt.Sprint(st.Options) || fmt.Sprint(back.Settings) != fmt.Sprint(st.Settings) {
		t.Errorf("written back: options %v settings %v, want %v %v\n%s", back.Options, back.Settings, st.Options, st.Settings, b)
	}
}

// A case label longer than the plan's usual column moves no column: every step's VU count starts
// at the same place.
func TestPlanAlignsLongLabels(t *testing.T) {
	st := read(t, `name: x
workload: tpcc
db: sqlite:///tmp/x.db
prepare: {warehouses: [4, 16], partition: [true, false]}
options: {mode: [sql]}
vu: [1, 2]
`)
	var b bytes.Buffer
	(&Plan{Study: st, Target: "SQLite"}).Print(&b)
	col, longest := -1, 0
	for _, l := range strings.Split(b.String(), "\n") {
		i := strings.Index(l, " VU, run ")
		if i < 0 {
			continue
		}
		label := strings.TrimSpace(l[:strings.LastIndex(l[:i], " ")])
		longest = max(longest, len(label))
		if at := strings.LastIndex(l[:i], " ") + 1; col < 0 {
			col = at
		} else if at != col {
			t.Errorf("a step's VU count at column %d, the first's at %d:\n%s", at, col, b.String())
		}
	}
	if col < 0 || longest <= 40 {
		t.Fatalf("no step label over 40 characters (longest %d) to test:\n%s", longest, b.String())
	}
}
