package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/cairn-bench/cairn/internal/results"
)

// A run whose server measured synch waits gets its waits by group and its synch waits alone,
// where the latch that is a sliver of all waits leads; a run without synch waits gets neither.
func TestSynchWaitCharts(t *testing.T) {
	r := testRun(t, "12", maria, 8, 1, 1)
	r.Waits = &results.Waits{Source: "performance_schema (fixture)", Events: []results.WaitEvent{
		{Name: "wait/io/table/sql/handler", Class: "io/table", Count: 900000, TimeMs: 9880, Share: 0.988},
		{Name: "wait/synch/rwlock/innodb/btr_search_latch", Class: "rwlock", Count: 52375, TimeMs: 80, Share: 0.008},
		{Name: "wait/synch/mutex/innodb/trx_sys_mutex", Class: "mutex", Count: 700, TimeMs: 20, Share: 0.002},
		{Name: "wait/lock/table/sql/handler", Class: "lock/table", Count: 10, TimeMs: 20, Share: 0.002}}}
	cs := observationCharts([]labelled{{Item: Item{Run: r}, label: "A"}}, nil)
	ids := chartIDs(cs)
	if !slices.Equal(ids, []string{"run-cpu-1", "run-waits", "run-wait-groups", "run-synch-waits"}) {
		t.Fatalf("charts %v", ids)
	}
	if g := cs[2].Categories; !slices.Equal(g, []string{"synch", "io", "lock"}) {
		t.Errorf("groups %v", g)
	}
	sy := cs[3]
	if sy.Categories[0] != "wait/synch/rwlock/innodb/btr_search_latch" || sy.Series[0].Points[0] != [2]float64{0, 80} {
		t.Errorf("synch waits %v %v", sy.Categories, sy.Series)
	}
	plain := testRun(t, "13", pg, 8, 1, 1)
	if ids := chartIDs(observationCharts([]labelled{{Item: Item{Run: plain}, label: "B"}}, nil)); slices.Contains(ids, "run-synch-waits") {
		t.Errorf("a run without synch waits draws them: %v", ids)
	}
}

// observedRun is a MariaDB run with what the newer observers add: synch waits (a latch that is
// a sliver of all waits) and the running threads each second, surging at t = 10.
func observedRun(t testing.TB) *results.Document {
	r := testRun(t, "14", maria, 16, 1, 5)
	r.Waits = &results.Waits{Source: "performance_schema (fixture)", Events: []results.WaitEvent{
		{Name: "wait/io/table/sql/handler", Class: "io/table", Count: 900000, TimeMs: 9880, Share: 0.988},
		{Name: "wait/synch/rwlock/innodb/btr_search_latch", Class: "rwlock", Count: 52375, TimeMs: 80, Share: 0.008},
		{Name: "wait/synch/mutex/innodb/trx_sys_mutex", Class: "mutex", Count: 700, TimeMs: 20, Share: 0.002},
		{Name: "wait/lock/table/sql/handler", Class: "lock/table", Count: 10, TimeMs: 20, Share: 0.002}}}
	return withRunning(r)
}

// withRunning gives a run the running threads each second, surging at t = 10.
func withRunning(r *results.Document) *results.Document {
	run := &results.Running{IntervalMs: 20, Source: "MariaDB: Threads_running less the sampler", Samples: 1250}
	for _, s := range r.Series {
		p := results.RunningSecond{T: s.T, Samples: 50, Max: 6, Mean: 3.5, HostMax: 8, HostMean: 5}
		if s.T > 9 && s.T < 11 {
			p.Max, p.HostMax = 31, 33
		}
		run.Series = append(run.Series, p)
	}
	mx, p99, mean := 31.0, 6.0, 3.6
	run.Max, run.P99, run.Mean, run.Host = &mx, &p99, &mean, &results.RunQueue{Max: 33, P99: 8, Mean: 5.1}
	results.SetSection(r, results.RunningSection, run)
	return r
}

// The running threads are drawn each second beside the run's other charts: the server's max
// and mean and the host's run queue, with the surge where it was.
func TestRunningChart(t *testing.T) {
	r := observedRun(t)
	c := runningChart(r, "A", "run-running-1")
	if c == nil || len(c.Series) != 3 || c.Series[0].Name != "server, max" || len(c.Series[0].Points) != len(r.Series) {
		t.Fatalf("chart %+v", c)
	}
	peak := 0.0
	for _, p := range c.Series[0].Points {
		peak = max(peak, p[1])
	}
	if peak != 31 {
		t.Errorf("the surge is drawn at %v", peak)
	}
	if runningChart(testRun(t, "15", pg, 8, 1, 1), "B", "x") != nil {
		t.Error("a run without running threads draws them")
	}
}

// A profile draws its running threads one line per step, and every running-threads chart stands
// next to the throughput over time it explains: a run's, several runs', a profile's per step, a
// study's cases'. Without a throughput chart, it stays where it was drawn.
func TestRunningBesideThroughput(t *testing.T) {
	c := stepRunning(observedProfile(t), "P", "profile-running-1")
	if c == nil || len(c.Series) != 3 || c.Series[0].Name != "1 VU" || c.Series[2].Name != "4 VUs" || !strings.Contains(c.Title, "server's running threads") {
		t.Fatalf("chart %+v", c)
	}
	if stepRunning(testProfile(t, "23", maria, 1, 1, 9), "P", "x") != nil {
		t.Error("a profile without running threads draws them")
	}
	after := func(ids []string, first string, want ...string) {
		t.Helper()
		i := slices.Index(ids, first)
		if i < 0 || i+len(want) >= len(ids) || !slices.Equal(ids[i+1:i+1+len(want)], want) {
			t.Errorf("%v: want %v after %s", ids, want, first)
		}
	}
	runs := chartIDs(Charts([]Item{{Run: observedRun(t)}, {Run: withRunning(testRun(t, "17", maria, 8, 1, 3))}}))
	after(runs, "runs-throughput", "run-running-1", "run-running-2")
	st := testStudy(t, "30", maria)
	for _, c := range st.Cases {
		for _, s := range c.Profile.Steps {
			for _, d := range s.Runs {
				withRunning(d)
			}
		}
	}
	// A live study's stand beside each case's live chart, on its clock (the window's).
	cs := Charts([]Item{{Study: st}})
	after(chartIDs(cs), "study-live-1", "profile-running-1")
	after(chartIDs(cs), "study-live-2", "profile-running-2")
	if r := cs[1]; r.XLabel != labelWindow || r.Series[0].Points[0][0] >= 0 {
		t.Errorf("%s: x axis %q, first point at %g: not on the window's clock", r.ID, r.XLabel, r.Series[0].Points[0][0])
	}
	st.Schedule = nil // without live changes, beside the cases' peaks over time
	after(chartIDs(Charts([]Item{{Study: st}})), "profiles-peak-throughput", "profile-running-1", "profile-running-2")
	alone := []Chart{{ID: "tpch-power"}, {ID: "run-running-1"}, {ID: "run-waits"}}
	if got := chartIDs(besideThroughput(alone)); !slices.Equal(got, []string{"tpch-power", "run-running-1", "run-waits"}) {
		t.Errorf("without a throughput chart: %v", got)
	}
}
