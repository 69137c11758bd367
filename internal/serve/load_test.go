package serve_test

import (
	"testing"

	"github.com/cairn-bench/cairn/internal/serve"
	"github.com/cairn-bench/cairn/internal/testutil"
)

// A run job with a load schedule tells each change on its event stream as a live setting event,
// as a study's live change (the charts mark it there): named vu, the VUs running, planned at its
// share of the window from the window's start.
func TestLoadScheduleEvents(t *testing.T) {
	s := start(t, serve.Config{})
	spec := "workload: oltp\ndb: " + testutil.SQLite(t) + "\nvu: 1\nrampup: 0s\nduration: 4s\nprogress: 1s\nseed: 7\n" +
		"options: {tables: 1, table-size: 500}\nprepare: true\nschedule: [{at: 25%, vu: 3}, {at: 75%, vu: 1}]\n"
	j := s.done("run", spec)
	if j.State != "done" {
		t.Fatalf("the job ended %s: %s", j.State, j.Error)
	}
	var got []map[string]any
	for _, e := range s.events(j.ID) {
		if e.Name == "setting" {
			got = append(got, e.Data)
		}
	}
	want := []struct {
		value string
		at    float64
	}{{"3", 1}, {"1", 3}}
	if len(got) != len(want) {
		t.Fatalf("setting events %v, want one per change: %v", got, want)
	}
	for i, w := range want {
		g := got[i]
		if g["name"] != "vu" || g["value"] != w.value || g["read_back"] != w.value || g["live"] != true || g["at_s"] != w.at {
			t.Errorf("setting event %d: %v, want vu=%s live at %v s", i, g, w.value, w.at)
		}
	}
}
