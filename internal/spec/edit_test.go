package spec_test

import (
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/spec"
	_ "github.com/cairn-bench/cairn/internal/workload/all"
)

func ptr(s string) *string { return &s }

// Edit writes each value in its option's type and keeps what it does not touch (comments, a
// study's keys); Values reads back what Edit wrote; the edited text reads as a spec.
func TestEditKeepsTheRest(t *testing.T) {
	text := "# my run\nname: study-key-kept\nworkload: tpcc\ndb: sqlite://x.db # the file\nvu: 2\nprepare: true\nsettings:\n  work_mem: [4MB, 8MB]\n"
	out, err := spec.Edit([]byte(text), map[string]*string{
		"vu": ptr("1,2,4"), "duration": ptr("30s"), "options.mode": ptr("sql"), "prepare.warehouses": ptr("3"),
		"rampup": ptr("5"), "db": ptr("sqlite://y.db"), "name": nil,
	})
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{"# my run", "db: sqlite://y.db # the file", "vu: [1, 2, 4]", "duration: 30s", "mode: sql", "warehouses: 3", "work_mem: [4MB, 8MB]", `rampup: "5"`} {
		if !strings.Contains(got, want) {
			t.Errorf("edited spec lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "name:") || strings.Contains(got, "prepare: true") {
		t.Errorf("edited spec keeps name: or prepare: true:\n%s", got)
	}
	v, err := spec.Values(out)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"vu": "1,2,4", "prepare": "true", "prepare.warehouses": "3", "options.mode": "sql", "db": "sqlite://y.db", "workload": "tpcc"} {
		if v[k] != want {
			t.Errorf("Values[%s] = %q, want %q (all: %v)", k, v[k], want, v)
		}
	}
	if _, ok := v["settings"]; ok {
		t.Errorf("Values shows a study's settings map as one value: %v", v)
	}
	// without the study's key, the edited text is a spec cairn reads, the values in their types
	out, err = spec.Edit(out, map[string]*string{"settings": nil})
	if err != nil {
		t.Fatal(err)
	}
	s, err := spec.Read(out)
	if err != nil {
		t.Fatalf("the edited spec does not read: %v\n%s", err, out)
	}
	if len(s.VU) != 3 || s.Duration.String() != "30s" || s.Rampup.String() != "5s" || s.Prepare == nil {
		t.Errorf("read back: vu %v duration %v rampup %v prepare %v", s.VU, s.Duration, s.Rampup, s.Prepare)
	}
	// taking the last prepare option out leaves the prepare asked for; an empty text is a spec
	out, _ = spec.Edit(out, map[string]*string{"prepare.warehouses": nil, "options.mode": nil})
	if !strings.Contains(string(out), "prepare: true") || strings.Contains(string(out), "options") {
		t.Errorf("after taking the options out:\n%s", out)
	}
	out, err = spec.Edit(nil, map[string]*string{"workload": ptr("tpcb"), "vu": ptr("4")})
	if err != nil || string(out) != "workload: tpcb\nvu: 4\n" {
		t.Errorf("from nothing: %q %v", out, err)
	}
	if _, err := spec.Edit([]byte("- a list\n"), nil); err == nil {
		t.Error("a list edited as a spec")
	}
}
