package study

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	_ "github.com/cairn-bench/cairn/internal/target/all"
	_ "github.com/cairn-bench/cairn/internal/workload/all"
)

// docs/study.schema.json is the schema the code makes; CAIRN_UPDATE_SCHEMA=1 writes it anew.
func TestSchemaFile(t *testing.T) {
	const path = "../../docs/study.schema.json"
	if os.Getenv("CAIRN_UPDATE_SCHEMA") != "" {
		if err := os.WriteFile(path, Schema(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(b, Schema()) {
		t.Error("docs/study.schema.json is not the schema the code makes: run CAIRN_UPDATE_SCHEMA=1 go test ./internal/study")
	}
}

func read(t *testing.T, text string) *Study {
	t.Helper()
	st, err := Read([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Every combination of the factors is a case, the last factor varying fastest; the orders lay
// the steps out as documented, random reproducibly with the seed.
func TestCasesAndOrder(t *testing.T) {
	st := read(t, `name: x
workload: tpcb
db: sqlite:///tmp/x.db
vu: [1, 2]
repeat: 2
seed: 9
settings: {cache_size: [100, 200], synchronous: ["off"]}
client_cpus: ["0", "1"]
`)
	var labels []string
	for _, c := range st.Cases() {
		labels = append(labels, c.Label())
	}
	want := "cache_size=100, synchronous=off, client-cpus 0|cache_size=100, synchronous=off, client-cpus 1|cache_size=200, synchronous=off, client-cpus 0|cache_size=200, synchronous=off, client-cpus 1"
	if got := strings.Join(labels, "|"); got != want {
		t.Errorf("cases:\n%s\nwant\n%s", got, want)
	}
	steps := func() string {
		var out []string
		for _, s := range st.Steps() {
			out = append(out, fmt.Sprintf("%d/%d/%d", s.Case.Index, s.VU, s.Repeat))
		}
		return strings.Join(out, " ")
	}
	if got := steps(); !strings.HasPrefix(got, "0/1/0 0/1/1 0/2/0 0/2/1 1/1/0") || len(st.Steps()) != 16 {
		t.Errorf("sequential: %s", got)
	}
	st.Order = "interleaved"
	if got := steps(); !strings.HasPrefix(got, "0/1/0 0/2/0 1/1/0 1/2/0 2/1/0") {
		t.Errorf("interleaved: %s", got)
	}
	st.Order = "random"
	a := steps()
	if b := steps(); a != b || a == "" {
		t.Errorf("random is not reproducible: %s / %s", a, b)
	}
	st.Order = "sequential"
	if seq := steps(); a == seq {
		t.Errorf("random order is the sequential one")
	}
	if d := st.Duration(); d != 16*(10*time.Second+time.Minute)+15*10*time.Second {
		t.Errorf("duration %s", d)
	}
}

// A schedule given in shares of the window follows --set duration; one given in times must stay
// inside the window.
func TestScheduleShares(t *testing.T) {
	st := read(t, `name: x
workload: tpcb
db: sqlite:///tmp/x.db
duration: 10m
schedule:
  - {at: 20%, set: {cache_size: 1}}
  - {at: 9m, set: {cache_size: 2}}
`)
	if st.Schedule[0].At != 2*time.Minute || st.Schedule[1].At != 9*time.Minute {
		t.Fatalf("schedule at %s, %s", st.Schedule[0].At, st.Schedule[1].At)
	}
	if err := st.Set("duration", "5m"); err == nil || !strings.Contains(err.Error(), "outside the measured window") {
		t.Errorf("9m in a 5m window: %v", err)
	}
	st = read(t, "name: x\nworkload: tpcb\ndb: sqlite:///tmp/x.db\nduration: 10m\nschedule: [{at: 50%, set: {cache_size: 1}}]\n")
	if err := st.Set("duration", "30s"); err != nil || st.Schedule[0].At != 15*time.Second {
		t.Errorf("50%% of 30s: %v %s", err, st.Schedule[0].At)
	}
}

func TestSameValue(t *testing.T) {
	for _, c := range []struct {
		given, back string
		same        bool
	}{{"ON", "ON", true}, {"on", "ON", true}, {"1", "ON", true}, {"true", "on", true}, {"12", "12", true},
		{"7000", "6000", false}, {"16MB", "16MB", true}, {"16384kB", "16MB", true}, {"off", "on", false}, {"normal", "1", false}} {
		if got := SameValue(c.given, c.back); got != c.same {
			t.Errorf("SameValue(%q, %q) = %v", c.given, c.back, got)
		}
	}
}

// A workload that runs itself (a workload.Tester: tpch's power and throughput tests) has no window
// at a VU count to study, and a study of it is refused.
func TestStudyRefusesAWorkloadThatRunsItself(t *testing.T) {
	_, err := Read([]byte(`name: x
workload: tpch
db: sqlite:///tmp/x.db
`))
	if err == nil || !strings.Contains(err.Error(), "tpch runs tests of its own shape") {
		t.Errorf("a study of tpch: %v", err)
	}
	if _, err := Read([]byte(`name: x
workload: tpcb
db: sqlite:///tmp/x.db
vu: [1]
`)); err != nil {
		t.Errorf("a study of tpcb: %v", err)
	}
}

// A schedule of live changes counts a fixed rampup on the run's clock: a rampup until steady
// beside it is refused, in the file and by --set.
func TestScheduleNeedsAFixedRampup(t *testing.T) {
	const file = "name: x\nworkload: tpcb\ndb: sqlite:///tmp/x.db\nschedule: [{at: 50%, set: {cache_size: 1}}]\n"
	if _, err := Read([]byte(file + "rampup-until-steady: 1m\n")); err == nil || !strings.Contains(err.Error(), "needs a fixed rampup") {
		t.Errorf("a schedule and rampup-until-steady in the file: %v", err)
	}
	st := read(t, file)
	if err := st.Set("rampup-until-steady", "1m"); err == nil || !strings.Contains(err.Error(), "needs a fixed rampup") {
		t.Errorf("--set rampup-until-steady beside a schedule: %v", err)
	}
	if _, err := Read([]byte("name: x\nworkload: tpcb\ndb: sqlite:///tmp/x.db\nrampup-until-steady: 1m\n")); err != nil {
		t.Errorf("rampup-until-steady without a schedule: %v", err)
	}
}
